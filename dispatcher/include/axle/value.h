// Value: one boxed operator argument or result (PyTorch's IValue, reduced to the
// types of axle's schema grammar). Scalars are Int, Double or Bool values.
//
// A Tensor Value either owns a Tensor handle or borrows the caller's
// (Value::borrow): a call's argument Stack borrows so that passing a tensor to
// an op costs no reference-count update. A borrowed Value is a Tensor Value in
// every respect (tag(), tensor()); copying it, or asking for mutable access,
// gives an owning one, so it never outlives the call it was made for.
#pragma once

#include <axle/device.h>
#include <axle/dtype.h>
#include <axle/generator.h>
#include <axle/scalar.h>
#include <axle/tensor.h>

#include <string>
#include <variant>
#include <vector>

namespace axle {

class AXLE_API Value {
 public:
  enum class Tag { None, Tensor, TensorList, Int, IntList, Double, Bool, String, DType, Device, Generator };
  Value() = default;
  Value(std::nullopt_t) {}                                     // NOLINT
  Value(Tensor t) : v_(std::move(t)) {}                        // NOLINT
  Value(std::vector<Tensor> t) : v_(std::move(t)) {}           // NOLINT
  Value(IntList l) : v_(std::move(l)) {}                       // NOLINT
  Value(std::initializer_list<int64_t> l) : v_(IntList(l)) {}  // NOLINT
  Value(const Scalar& s);                                      // NOLINT
  Value(std::string s) : v_(std::move(s)) {}                   // NOLINT
  Value(const char* s) : v_(std::string(s)) {}                 // NOLINT
  Value(DType d) : v_(d) {}                                    // NOLINT
  Value(Device d) : v_(d) {}                                   // NOLINT
  Value(Generator g) : v_(std::move(g)) {}                     // NOLINT
  template <typename T>
  Value(std::optional<T> o) {  // NOLINT
    if (o) *this = Value(*o);
  }
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  Value(T x) : Value(Scalar(x)) {}  // NOLINT
  // Refers to `t` without owning it; `t` must outlive this Value and its moves.
  // (`Value(Value::kBorrow, t)` does the same in place: `stack.emplace_back(Value::kBorrow, t)`.)
  struct BorrowTag {};
  static constexpr BorrowTag kBorrow{};
  Value(BorrowTag, const Tensor& t) : v_(std::in_place_type<Borrowed>, Borrowed{&t}) {}
  static Value borrow(const Tensor& t) { return Value(kBorrow, t); }
  Value(const Value& o) : v_(o.owned()) {}
  Value& operator=(const Value& o) {
    if (this != &o) v_ = o.owned();
    return *this;
  }
  Value(Value&&) noexcept = default;
  Value& operator=(Value&&) noexcept = default;
  ~Value() = default;

  Tag tag() const {
    const size_t i = v_.index();
    return i == kBorrowedIndex ? Tag::Tensor : static_cast<Tag>(i);
  }
  bool is_none() const { return tag() == Tag::None; }
  bool is_tensor() const { return tag() == Tag::Tensor; }
  bool is_scalar() const { return tag() == Tag::Int || tag() == Tag::Double || tag() == Tag::Bool; }
  const Tensor& tensor() const {
    if (const auto* b = std::get_if<Borrowed>(&v_)) [[likely]]
      return *b->tensor;
    if (const auto* t = std::get_if<Tensor>(&v_)) [[likely]]
      return *t;
    expected("Tensor");
  }
  // Mutable access owns: a borrowed Value becomes an owning one first.
  Tensor& tensor() {
    if (auto* t = std::get_if<Tensor>(&v_)) [[likely]]
      return *t;
    if (const auto* b = std::get_if<Borrowed>(&v_)) return v_.emplace<Tensor>(*b->tensor);
    expected("Tensor");
  }
  const std::vector<Tensor>& tensors() const;
  int64_t to_int() const;
  double to_double() const;
  bool to_bool() const;
  Scalar scalar() const;
  const IntList& int_list() const;
  const std::string& str() const;
  DType dtype() const;
  Device device() const;
  const Generator& generator() const;
  std::string type_name() const;
  std::string repr() const;

 private:
  struct Borrowed {
    const Tensor* tensor;
  };
  using Variant = std::variant<std::monostate, Tensor, std::vector<Tensor>, int64_t, IntList, double, bool, std::string,
                               DType, Device, Generator, Borrowed>;
  static constexpr size_t kBorrowedIndex = std::variant_size_v<Variant> - 1;
  // The variant, with a borrowed tensor turned into an owned one.
  Variant owned() const {
    if (const auto* b = std::get_if<Borrowed>(&v_)) return Variant(std::in_place_type<Tensor>, *b->tensor);
    return v_;
  }
  [[noreturn]] void expected(const char* type) const;  // ValueError "expected <type> but got <this type>"
  Variant v_;
};

namespace detail {
// Memory for Stacks: every op call builds an argument and an output Stack, so
// their blocks (up to 16 Values) are recycled on a per-thread free list
// instead of going through malloc/free each call.
AXLE_API void* stack_allocate(size_t bytes);
AXLE_API void stack_deallocate(void* p, size_t bytes) noexcept;

template <typename T>
struct StackAllocator {
  using value_type = T;
  StackAllocator() noexcept = default;
  template <typename U>
  StackAllocator(const StackAllocator<U>&) noexcept {}  // NOLINT: rebinding
  T* allocate(size_t n) { return static_cast<T*>(stack_allocate(n * sizeof(T))); }
  void deallocate(T* p, size_t n) noexcept { stack_deallocate(p, n * sizeof(T)); }
  template <typename U>
  bool operator==(const StackAllocator<U>&) const noexcept {
    return true;
  }
};
}  // namespace detail

// The boxed arguments or results of one op call.
using Stack = std::vector<Value, detail::StackAllocator<Value>>;

}  // namespace axle
