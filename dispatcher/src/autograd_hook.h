// Internal to libaxle: the one place where the dispatcher meets the autograd
// layer (autograd/). The dispatcher knows autograd only as an interceptor of
// calls, as it knows trace mode: once the autograd layer activates its hook
// (the first time a tensor requires grad), every call passes through it; until
// then a call costs what it always did. The hook runs the op itself through
// dispatch_below_autograd.
#pragma once

#include "registry.h"

namespace axle::detail {

// Returns true after running the call (its outputs in `result`), false when it
// does not concern autograd (grad mode off, no argument requires grad): the
// dispatcher then runs it as usual.
using AutogradHook = bool (*)(const OpEntry& op, Stack& args, const std::vector<Tensor>* out, Stack& result);

// Activates the hook (once; later calls are ignored).
void set_autograd_hook(AutogradHook hook);

// Runs a call below the autograd layer: trace mode and the parity recorder
// still see it.
Stack dispatch_below_autograd(const OpEntry& op, Stack& args, const std::vector<Tensor>* out);

}  // namespace axle::detail
