// Random ops: rand, randn, randint, bernoulli.p and the *_like forms. The Generator? argument
// (the device type's default generator when None) is replaced by int[2]
// {seed, offset} after reserving one Philox counter per output element, so a
// kernel is a pure function of its arguments (plugin-sdk random.hpp).
#include "../derivatives/derivatives.h"
#include "shape_util.h"

#include <axle/dispatcher.h>
#include <axle/generator.h>
#include <axle/ops.h>

namespace axle::shape {
namespace {

// Reserves `count` counters from args[at] (a Generator or None) and replaces it.
void take_counters(ShapeContext& c, size_t at, int64_t count) {
  if (c.args[at].tag() == Value::Tag::IntList) return;  // already taken (host fallback re-enters)
  Generator g = c.args[at].is_none() ? default_generator(c.device) : c.args[at].generator();
  AXLE_CHECK(g.device().type() == c.device.type(), DeviceError, c.op, ": expected a '", c.device.type().name(),
             "' generator for a tensor on ", c.device, ", got a generator on ", g.device());
  const auto [seed, offset] = g.reserve(static_cast<uint64_t>(count));
  c.args[at] = IntList{static_cast<int64_t>(seed), static_cast<int64_t>(offset)};
}

DType dtype_or(const Value& v, DType fallback) { return v.is_none() ? fallback : v.dtype(); }

// rand / randn (size, generator, dtype, device): floating dtypes only.
void float_random_shape(ShapeContext& c) {
  const IntList& size = c.args[0].int_list();
  const int64_t n = checked_numel(size);
  const DType dt = dtype_or(c.args[2], get_default_dtype());
  AXLE_CHECK(is_floating_point(dt), DTypeError, c.op, ": not implemented for ", dtype_name(dt),
             " (floating dtypes only)");
  take_counters(c, 1, n);
  c.outputs = {{size, dt}};
}

// randint.low(low, high, size, generator, dtype, device).
void randint_shape(ShapeContext& c) {
  const int64_t low = c.args[0].to_int(), high = c.args[1].to_int();
  AXLE_CHECK(low < high, ValueError, c.op, ": random_ expects 'from' to be less than 'to', but got from=", low,
             " >= to=", high);
  const IntList& size = c.args[2].int_list();
  const int64_t n = checked_numel(size);
  const DType dt = dtype_or(c.args[4], kInt64);
  AXLE_CHECK(dt != kBool || (low >= 0 && high <= 2), ValueError, c.op, ": bool tensors hold values in [0, 2), got [",
             low, ", ", high, ")");
  take_counters(c, 3, n);
  c.outputs = {{size, dt}};
}

// bernoulli.p(self, p, generator): self's shape and dtype; four draws per
// Philox block (plugin-sdk random.hpp, bernoulli_word).
void bernoulli_p_shape(ShapeContext& c) {
  const Tensor& self = c.arg(0).tensor();
  const double p = c.args[1].to_double();
  AXLE_CHECK(p >= 0 && p <= 1, ValueError, c.op, ": bernoulli_ expects p to be in [0, 1], but got p=", p);
  take_counters(c, 2, (self.numel() + 3) / 4);
  c.outputs = {{self.sizes(), self.dtype()}};
}

// bernoulli(self, generator): self holds the probabilities; a float64 uniform
// per element below its probability draws 1.
Stack bernoulli_composite(const Stack& a) {
  const Tensor& probs = a[0].tensor();
  AXLE_CHECK(is_floating_point(probs.dtype()), DTypeError, "\"bernoulli_tensor_cpu_p_\" not implemented for '",
             torch_type_name(probs.dtype()), "' (bernoulli: floating probabilities only)");
  const Tensor p = probs.to(kFloat64);
  if (probs.numel() > 0)
    AXLE_CHECK(all(ge(p, scalar_to_tensor(Scalar(0.0)))).item<bool>() &&
                   all(le(p, scalar_to_tensor(Scalar(1.0)))).item<bool>(),
               ValueError, "Expected p_in >= 0 && p_in <= 1 to be true, but got false.");
  const Tensor u = call_op("rand", {probs.sizes(), a[1], kFloat64, probs.device()})[0].tensor();
  return {lt(u, p).to(probs.dtype())};
}

Stack like(const char* op, const Stack& a) {
  const Tensor& self = a[0].tensor();
  const Value dtype = a[1].is_none() ? Value(self.dtype()) : a[1];
  const Value device = a[2].is_none() ? Value(self.device()) : a[2];
  return call_op(op, {self.sizes(), a[3], dtype, device});
}

}  // namespace

std::vector<OpDecl> random_ops() {
  return {
      {.schema =
           "rand(int[] size, *, Generator? generator=None, ScalarType? dtype=None, Device? device=None) -> Tensor",
       .shape = &float_random_shape,
       .doc = "Uniform random values in [0, 1) (Philox; same seed, same values).",
       .derivative = {.none = "random draws"}},
      {.schema =
           "randn(int[] size, *, Generator? generator=None, ScalarType? dtype=None, Device? device=None) -> Tensor",
       .shape = &float_random_shape,
       .doc = "Standard normal random values (Philox + Box-Muller).",
       .derivative = {.none = "random draws"}},
      {.schema = "randint.low(int low, int high, int[] size, *, Generator? generator=None, ScalarType? dtype=None, "
                 "Device? device=None) -> Tensor",
       .shape = &randint_shape,
       .doc = "Uniform random integers in [low, high) (int64 by default).",
       .derivative = {.none = "random draws"}},
      {.schema = "randint(int high, int[] size, *, Generator? generator=None, ScalarType? dtype=None, Device? "
                 "device=None) -> Tensor",
       .composite =
           [](const Stack& a) {
             return call_op("randint.low", {0, a[0], a[1], a[2], a[3], a[4]});
           },
       .doc = "Uniform random integers in [0, high).",
       .derivative = {.none = "random draws"}},
      {.schema = "bernoulli(Tensor self, *, Generator? generator=None) -> Tensor",
       .composite = &bernoulli_composite,
       .doc = "Draws of 1 with probability self (floating, in [0, 1]), else 0, as self's dtype.",
       .derivative = {.none = "random draws"}},
      {.schema = "bernoulli.p(Tensor self, float p, *, Generator? generator=None) -> Tensor",
       .shape = &bernoulli_p_shape,
       .doc = "Draws of 1 with probability p (else 0), with self's shape and dtype (what dropout's mask is).",
       .derivative = {.none = "random draws"}},
      {.schema = "rand_like(Tensor self, *, ScalarType? dtype=None, Device? device=None, Generator? generator=None) -> "
                 "Tensor",
       .composite = [](const Stack& a) { return like("rand", a); },
       .doc = "rand with self's shape, dtype and device.",
       .derivative = {.none = "random draws"}},
      {.schema = "randn_like(Tensor self, *, ScalarType? dtype=None, Device? device=None, Generator? generator=None) "
                 "-> Tensor",
       .composite = [](const Stack& a) { return like("randn", a); },
       .doc = "randn with self's shape, dtype and device.",
       .derivative = {.none = "random draws"}},
  };
}

}  // namespace axle::shape
