// Boxed values: typed accessors with errors that name the expected type.
#include <axle/value.h>

#include "recycling_allocator.h"

#include <sstream>

namespace axle {

Value::Value(const Scalar& s) {
  switch (s.kind()) {
    case Scalar::Kind::Double: v_ = s.to_double(); break;
    case Scalar::Kind::Int: v_ = s.to_int(); break;
    case Scalar::Kind::Bool: v_ = s.to_bool(); break;
  }
}

namespace {
[[noreturn]] void bad(const Value& v, const char* want) {
  throw ValueError(detail::concat("expected ", want, " but got ", v.type_name()));
}
}  // namespace

void Value::expected(const char* type) const { bad(*this, type); }
const std::vector<Tensor>& Value::tensors() const {
  if (auto* t = std::get_if<std::vector<Tensor>>(&v_)) return *t;
  bad(*this, "Tensor[]");
}
int64_t Value::to_int() const {
  if (auto* i = std::get_if<int64_t>(&v_)) return *i;
  if (auto* b = std::get_if<bool>(&v_)) return *b;
  bad(*this, "int");
}
double Value::to_double() const {
  if (auto* d = std::get_if<double>(&v_)) return *d;
  if (auto* i = std::get_if<int64_t>(&v_)) return static_cast<double>(*i);
  if (auto* b = std::get_if<bool>(&v_)) return *b;
  bad(*this, "float");
}
bool Value::to_bool() const {
  if (auto* b = std::get_if<bool>(&v_)) return *b;
  if (auto* i = std::get_if<int64_t>(&v_)) return *i != 0;
  bad(*this, "bool");
}
Scalar Value::scalar() const {
  if (auto* d = std::get_if<double>(&v_)) return Scalar(*d);
  if (auto* i = std::get_if<int64_t>(&v_)) return Scalar(*i);
  if (auto* b = std::get_if<bool>(&v_)) return Scalar(*b);
  bad(*this, "Scalar");
}
const IntList& Value::int_list() const {
  if (auto* l = std::get_if<IntList>(&v_)) return *l;
  bad(*this, "int[]");
}
const std::string& Value::str() const {
  if (auto* s = std::get_if<std::string>(&v_)) return *s;
  bad(*this, "str");
}
DType Value::dtype() const {
  if (auto* d = std::get_if<DType>(&v_)) return *d;
  bad(*this, "ScalarType");
}
Device Value::device() const {
  if (auto* d = std::get_if<Device>(&v_)) return *d;
  if (auto* s = std::get_if<std::string>(&v_)) return Device(*s);
  bad(*this, "Device");
}

const Generator& Value::generator() const {
  if (auto* g = std::get_if<Generator>(&v_)) return *g;
  bad(*this, "Generator");
}

std::string Value::type_name() const {
  static const char* kNames[] = {"None", "Tensor", "Tensor[]",   "int",    "int[]",    "float",
                                 "bool", "str",    "ScalarType", "Device", "Generator"};
  return kNames[static_cast<size_t>(tag())];
}

std::string Value::repr() const {
  std::ostringstream os;
  switch (tag()) {
    case Tag::None: os << "None"; break;
    case Tag::Tensor: os << tensor().toString(); break;
    case Tag::TensorList: os << "[" << tensors().size() << " tensors]"; break;
    case Tag::Int: os << std::get<int64_t>(v_); break;
    case Tag::IntList: {
      os << "[";
      for (size_t i = 0; i < int_list().size(); ++i) os << (i ? ", " : "") << int_list()[i];
      os << "]";
      break;
    }
    case Tag::Double: os << std::get<double>(v_); break;
    case Tag::Bool: os << (std::get<bool>(v_) ? "True" : "False"); break;
    case Tag::String: os << "'" << str() << "'"; break;
    case Tag::DType: os << dtype(); break;
    case Tag::Device: os << device(); break;
    case Tag::Generator: os << "Generator(" << generator().device() << ")"; break;
  }
  return os.str();
}

namespace detail {

namespace {
// Stack blocks in three size classes (4, 8 and 16 Values); larger Stacks use
// operator new. A block of class Size comes from and returns to FreeList<Size>.
template <size_t Size, size_t... Larger>
void* take(size_t bytes) {
  if (bytes > Size) {
    if constexpr (sizeof...(Larger) > 0)
      return take<Larger...>(bytes);
    else
      return ::operator new(bytes);
  }
  if (void* p = FreeList<Size>::pop()) return p;
  return ::operator new(Size);
}
template <size_t Size, size_t... Larger>
void give(void* p, size_t bytes) noexcept {
  if (bytes > Size) {
    if constexpr (sizeof...(Larger) > 0)
      give<Larger...>(p, bytes);
    else
      ::operator delete(p);
  } else if (!FreeList<Size>::push(p)) {
    ::operator delete(p);
  }
}
}  // namespace

void* stack_allocate(size_t bytes) { return take<4 * sizeof(Value), 8 * sizeof(Value), 16 * sizeof(Value)>(bytes); }
void stack_deallocate(void* p, size_t bytes) noexcept {
  give<4 * sizeof(Value), 8 * sizeof(Value), 16 * sizeof(Value)>(p, bytes);
}

}  // namespace detail
}  // namespace axle
