// AXLE_OP("add.Tensor"): the op's handle, resolved once per call site. Used by
// the C++ API wrappers (dispatcher/src/api.cpp and dispatcher/src/api/<family>.cpp).
#pragma once

#include <axle/dispatcher.h>

#define AXLE_OP(name)                         \
  ([]() -> const ::axle::OpHandle& {          \
    static const ::axle::OpHandle h = ::axle::find_op(name);  \
    return h;                                 \
  }())

namespace axle::detail {
// A call's arguments as a Stack, each Value made once in place: a braced list
// (`call_op(op, {a, b})`) builds an initializer_list first and copies it, which
// costs every Tensor argument two extra atomic reference-count updates.
template <typename... Args>
Stack stack_of(Args&&... args) {
  Stack s;
  s.reserve(sizeof...(Args));
  (s.emplace_back(std::forward<Args>(args)), ...);
  return s;
}
}  // namespace axle::detail
