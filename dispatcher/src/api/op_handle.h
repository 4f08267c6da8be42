// AXLE_OP("add.Tensor"): the op's handle, resolved once per call site. Used by
// the C++ API wrappers (dispatcher/src/api.cpp and dispatcher/src/api/<family>.cpp).
#pragma once

#include <axle/dispatcher.h>

#define AXLE_OP(name)                         \
  ([]() -> const ::axle::OpHandle& {          \
    static const ::axle::OpHandle h = ::axle::find_op(name);  \
    return h;                                 \
  }())
