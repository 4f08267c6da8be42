// Derivatives: what each operator declares about its gradient, next to its
// shape function (OpDecl::derivative). A formula is a vector-Jacobian product
// written with axle ops (MLX's per-primitive vjp, the role of PyTorch's
// derivatives.yaml): given the gradients of the op's outputs it sets the
// gradients of its tensor arguments. Formulas run through the dispatcher like
// any op, so they run on the device of the forward call, a plugin that serves
// the forward ops can train, and with create_graph they are recorded again
// (higher-order gradients). The autograd layer (autograd/) runs them; the
// engine reduces a gradient to its argument's shape (broadcasting) and casts it
// to the argument's dtype, so a formula needs to do neither.
#pragma once

#include <axle/export.h>
#include <axle/value.h>

#include <cstdint>

namespace axle {

class VjpContext;
using VjpFn = void (*)(VjpContext& c);

// Bits of Derivative::saves: tensor argument i (Tensor or Tensor[]), output i;
// i below 16 each.
constexpr uint32_t save_arg(int i) { return 1u << i; }
constexpr uint32_t save_output(int i) { return 1u << (16 + i); }

struct Derivative {
  VjpFn vjp = nullptr;  // the formula
  // Which tensors the formula reads (save_arg / save_output bits): only these
  // are kept alive for backward and checked against in-place changes. Other
  // tensor arguments leave only their sizes, dtype and device.
  uint32_t saves = 0;
  // Not differentiable, and why ("comparison: bool output"): outputs never
  // require grad. Exclusive with vjp.
  const char* none = nullptr;
  // A composite op written with other ops: autograd records those ops instead
  // (torch's CompositeImplicitAutograd); needs no formula.
  bool decomposes = false;
};

// A formula's view of one recorded call, at backward time.
class AXLE_API VjpContext {
 public:
  virtual ~VjpContext() = default;
  // The call's non-tensor arguments after its shape function normalized them
  // (wrapped dims...); tensor arguments read through input().
  virtual const Value& arg(size_t i) const = 0;
  // A saved tensor argument (ValueError-typed if it changed in place since).
  virtual const Tensor& input(size_t i) const = 0;
  // An element of a saved Tensor[] argument.
  virtual const Tensor& input(size_t i, size_t k) const = 0;
  // A saved output.
  virtual const Tensor& result(size_t i = 0) const = 0;
  // The gradient flowing into output i (zeros of its shape when none did).
  virtual const Tensor& grad(size_t i = 0) const = 0;
  // Whether a gradient flowed into output i (torch's grad.defined()): a
  // formula may skip the terms of an output that got none.
  virtual bool has_grad(size_t i) const = 0;
  // Whether a Tensor? argument was given (not None).
  virtual bool has_tensor(size_t i) const = 0;
  virtual bool has_tensor(size_t i, size_t k) const = 0;  // element k of a Tensor?[] argument
  // Whether the gradient of tensor argument i is wanted (requires grad).
  virtual bool needs(size_t i) const = 0;
  // Metadata of tensor argument i as it was at the call (saved or not).
  virtual const IntList& sizes(size_t i) const = 0;
  virtual DType dtype(size_t i) const = 0;
  virtual Device device(size_t i) const = 0;
  virtual const IntList& sizes(size_t i, size_t k) const = 0;  // Tensor[] element k
  virtual size_t list_size(size_t i) const = 0;
  // The gradient of tensor argument i (or element k of a Tensor[] argument).
  virtual void set(size_t i, Tensor grad) = 0;
  virtual void set(size_t i, size_t k, Tensor grad) = 0;
};

}  // namespace axle
