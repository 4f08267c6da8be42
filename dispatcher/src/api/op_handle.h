// AXLE_OP("add.Tensor"): the op's handle, resolved once per call site. Used by
// the C++ API wrappers (dispatcher/src/api/<family>.cpp, tensor_methods.cpp).
#pragma once

#include <axle/dispatcher.h>

#include <tuple>
#include <type_traits>
#include <utility>

#define AXLE_OP(name)                                        \
  ([]() -> const ::axle::OpHandle& {                         \
    static const ::axle::OpHandle h = ::axle::find_op(name); \
    return h;                                                \
  }())

namespace axle::detail {
// A call's arguments as a Stack, each Value made once in place, and tensors the
// caller holds borrowed (Value::borrow: they outlive the call): passing a tensor
// costs no atomic reference-count update. (A braced list, `call_op(op, {a,
// b})`, builds an initializer_list and copies it: four updates per tensor.)
template <typename T>
void push_arg(Stack& s, T&& x) {
  if constexpr (std::is_same_v<std::remove_cvref_t<T>, Tensor> && std::is_lvalue_reference_v<T>)
    s.emplace_back(Value::kBorrow, x);
  else
    s.emplace_back(std::forward<T>(x));
}
template <typename... Args>
Stack stack_of(Args&&... args) {
  Stack s;
  s.reserve(sizeof...(Args));
  (push_arg(s, std::forward<Args>(args)), ...);
  return s;
}
// Calls `op` with `args` (borrowed as above): all its outputs, or its first.
template <typename... Args>
Stack call(const OpHandle& op, Args&&... args) {
  return call_op(op, stack_of(std::forward<Args>(args)...));
}
template <typename... Args>
Tensor call_one(const OpHandle& op, Args&&... args) {
  return std::move(call(op, std::forward<Args>(args)...)[0].tensor());
}
template <typename... Args>
std::tuple<Tensor, Tensor> call_two(const OpHandle& op, Args&&... args) {
  Stack out = call(op, std::forward<Args>(args)...);
  return {std::move(out[0].tensor()), std::move(out[1].tensor())};
}
}  // namespace axle::detail
