// 3-d pooling and transposed 3-d convolution with torch 1.13's checks and
// messages: max_pool3d_with_indices, avg_pool3d, _adaptive_avg_pool3d and
// adaptive_max_pool3d are kernel ops over (C, D, H, W) or (N, C, D, H, W)
// inputs; max_pool3d (its own shape, so a plugin can serve it without indices)
// and adaptive_avg_pool3d (to [1, 1, 1] a mean, as torch) are composites over
// them; conv_transpose3d is a composite over convolution (conv_pool.cpp).
// Integer inputs fail here (int64 avg_pool3d excepted); the host kernels
// refuse the low-precision dtypes torch's CPU lacks (plugins/reference/conv_pool3d.cpp).
// Max-pool indices are flat within each D*H*W volume: (d * H + h) * W + w.
#include "../derivatives/derivatives.h"
#include "conv_pool_util.h"
#include "shape_util.h"

#include <axle/ops.h>

#include <string>

namespace axle::shape {
namespace {

struct Pool3d {
  IntList k, s, p, d{1, 1, 1};
};

// One value, or exactly three, for an int list of a 3-d pool (`what` names it in the error).
IntList three(const char* op, const IntList& l, const char* pool, const char* what, bool allow_empty,
              const IntList& fallback) {
  if (allow_empty && l.empty()) return fallback;
  AXLE_CHECK(l.size() == 1 || l.size() == 3, ValueError, op, ": ", pool, ": ", what);
  return l.size() == 1 ? IntList{l[0], l[0], l[0]} : l;
}

// Reads kernel_size, stride ([] = kernel_size), padding (and dilation) as torch's
// max_pool3d / avg_pool3d do, writing them back as three values each.
Pool3d read_pool3d_args(ShapeContext& c, const char* pool, bool has_dilation) {
  const bool max = has_dilation;
  Pool3d r;
  r.k = three(c.op, c.args[1].int_list(), pool,
              max ? "kernel_size must either be a single int, or a tuple of three ints"
                  : "kernel_size must be a single int, or a tuple of three ints",
              false, {});
  r.s = three(c.op, c.args[2].int_list(), pool,
              max ? "stride must either be omitted, a single int, or a tuple of three ints"
                  : "stride must be omitted, a single int, or a tuple of three ints",
              true, r.k);
  r.p = three(c.op, c.args[3].int_list(), pool,
              max ? "padding must either be a single int, or a tuple of three ints"
                  : "padding must be a single int, or a tuple of three ints",
              false, {});
  if (has_dilation) {
    r.d = three(c.op, c.args[4].int_list(), pool, "dilation must be either a single int, or a tuple of three ints",
                false, {});
    c.args[4] = r.d;
  }
  c.args[1] = r.k;
  c.args[2] = r.s;
  c.args[3] = r.p;
  return r;
}

// torch's pool3d_shape_check (check_input_size: avg_pool3d's "input image smaller
// than kernel size"); returns the output sizes.
IntList pool3d_check(const char* op, const Tensor& input, const Pool3d& p, const IntList& o, bool check_input_size) {
  AXLE_CHECK(p.k[0] > 0 && p.k[1] > 0 && p.k[2] > 0, ValueError, op,
             ": kernel size should be greater than zero, but got kT: ", p.k[0], " kH: ", p.k[1], " kW: ", p.k[2]);
  AXLE_CHECK(p.s[0] > 0 && p.s[1] > 0 && p.s[2] > 0, ValueError, op,
             ": stride should be greater than zero, but got dT: ", p.s[0], " dH: ", p.s[1], " dW: ", p.s[2]);
  AXLE_CHECK(p.d[0] > 0 && p.d[1] > 0 && p.d[2] > 0, ValueError, op,
             ": dilation should be greater than zero, but got dilationT: ", p.d[0], " dilationH: ", p.d[1],
             " dilationW: ", p.d[2]);
  const int64_t nd = input.dim();
  const IntList& s = input.sizes();
  AXLE_CHECK(nd == 4 || nd == 5, ShapeError, op, ": Expected 4D or 5D tensor for input, but got: ", str(s));
  for (int64_t i = nd == 5 ? 1 : 0; i < nd; ++i)
    AXLE_CHECK(s[i] > 0, ShapeError, op,
               ": Expected input's non-batch dimensions to have positive length, but input has a shape of ", str(s),
               " and non-batch dimension ", s[i], " has length zero!");
  const int64_t it = s[nd - 3], ih = s[nd - 2], iw = s[nd - 1];
  if (check_input_size)
    AXLE_CHECK(it >= p.k[0] && ih >= p.k[1] && iw >= p.k[2], ShapeError, op, ": input image (T: ", it, " H: ", ih,
               " W: ", iw, ") smaller than kernel size (kT: ", p.k[0], " kH: ", p.k[1], " kW: ", p.k[2], ")");
  AXLE_CHECK(p.k[0] / 2 >= p.p[0] && p.k[2] / 2 >= p.p[2] && p.k[1] / 2 >= p.p[1], ValueError, op,
             ": pad should be smaller than or equal to half of kernel size, but got kT: ", p.k[0], " kW: ", p.k[2],
             " kH: ", p.k[1], " padT: ", p.p[0], " padW: ", p.p[2], " padH: ", p.p[1]);
  const int64_t planes = s[nd - 4];
  AXLE_CHECK(o[0] >= 1 && o[1] >= 1 && o[2] >= 1, ShapeError, op, ": Given input size: (", planes, "x", it, "x", ih,
             "x", iw, "). Calculated output size: (", planes, "x", o[0], "x", o[1], "x", o[2],
             "). Output size is too small");
  IntList out(s.begin(), s.end() - 3);
  out.insert(out.end(), o.begin(), o.end());
  return out;
}

void pool_dtype(const char* op, const char* kernel, DType d, bool int64_too = false) {
  AXLE_CHECK(is_floating_point(d) || (int64_too && d == kInt64), DTypeError, op, ": \"", kernel,
             "\" not implemented for '", torch_type_name(d), "'");
}

void max_pool3d_with_indices_shape(ShapeContext& c) {
  const Tensor& input = c.arg(0).tensor();
  const Pool3d p = read_pool3d_args(c, "max_pool3d", true);
  const int64_t nd = input.dim();
  AXLE_CHECK(nd == 4 || nd == 5, ShapeError, c.op, ": non-empty 4D or 5D (batch mode) tensor expected for input");
  const bool ceil = c.args[5].to_bool();
  IntList o;
  for (int64_t i = 0; i < 3; ++i)
    o.push_back(pool_out(c.op, input.size(nd - 3 + i), p.k[i], p.p[i], p.s[i], p.d[i], ceil));
  const IntList out = pool3d_check(c.op, input, p, o, false);
  pool_dtype(c.op, "max_pool3d_with_indices_cpu", input.dtype());
  c.outputs = {{out, input.dtype()}, {out, kInt64}};
}

void max_pool3d_shape(ShapeContext& c) {
  max_pool3d_with_indices_shape(c);
  c.outputs.resize(1);
}

Stack max_pool3d_composite(const Stack& a) { return {call_op("max_pool3d_with_indices", a)[0]}; }

void avg_pool3d_shape(ShapeContext& c) {
  const Tensor& input = c.arg(0).tensor();
  const Pool3d p = read_pool3d_args(c, "avg_pool3d", false);
  const int64_t nd = input.dim();
  AXLE_CHECK(nd == 4 || nd == 5, ShapeError, c.op, ": non-empty 4D or 5D (batch mode) tensor expected for input");
  AXLE_CHECK(c.args[6].is_none() || c.args[6].to_int() != 0, ValueError, c.op, ": divisor must be not zero");
  const bool ceil = c.args[4].to_bool();
  IntList o;
  for (int64_t i = 0; i < 3; ++i) o.push_back(pool_out(c.op, input.size(nd - 3 + i), p.k[i], p.p[i], p.s[i], 1, ceil));
  const IntList out = pool3d_check(c.op, input, p, o, true);
  pool_dtype(c.op, "avg_pool3d_out_frame", input.dtype(), true);
  c.outputs = {{out, input.dtype()}};
}

void check_output_size3(const char* op, const Value& v) {
  const IntList& o = v.int_list();
  AXLE_CHECK(o.size() == 3, ValueError, op, ": adaptive_avg_pool3d: output_size must be 3");
  AXLE_CHECK(o[0] >= 0 && o[1] >= 0 && o[2] >= 0, ValueError, op,
             ": adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 but received {", o[0],
             ", ", o[1], ", ", o[2], "}");
}

// The non-batch dims (all but dim 0) of a 4-d or 5-d adaptive pool input must be non-empty.
void check_adaptive_input(const char* op, const Tensor& input, const char* name) {
  const int64_t nd = input.dim();
  for (int64_t i = 1; i < nd; ++i)
    AXLE_CHECK(input.size(i) > 0, ShapeError, op, ": ", name,
               "(): Expected input to have non-zero size for non-batch dimensions, but input has sizes ",
               str(input.sizes()), " with dimension ", i, " being empty");
  AXLE_CHECK(nd == 4 || nd == 5, ShapeError, op, ": ", name, "(): Expected 4D or 5D tensor, but got ",
             str(input.sizes()));
}

void adaptive_avg_pool3d_shape(ShapeContext& c) {
  const Tensor& input = c.arg(0).tensor();
  check_output_size3(c.op, c.args[1]);
  check_adaptive_input(c.op, input, "adaptive_avg_pool3d");
  IntList out(input.sizes().begin(), input.sizes().end() - 3);
  out.insert(out.end(), c.args[1].int_list().begin(), c.args[1].int_list().end());
  pool_dtype(c.op, "adaptive_avg_pool3d_cpu", input.dtype());
  c.outputs = {{out, input.dtype()}};
}

Stack adaptive_avg_pool3d_composite(const Stack& a) {
  check_output_size3("adaptive_avg_pool3d", a[1]);
  const IntList& o = a[1].int_list();
  if (o[0] == 1 && o[1] == 1 && o[2] == 1) return call_op("mean.dim", {a[0], IntList{-1, -2, -3}, true, Value()});
  return call_op("_adaptive_avg_pool3d", a);
}

void adaptive_max_pool3d_shape(ShapeContext& c) {
  const Tensor& input = c.arg(0).tensor();
  const int64_t nd = input.dim();
  AXLE_CHECK(nd == 4 || nd == 5, ShapeError, c.op,
             ": adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: ", str(input.sizes()));
  check_adaptive_input(c.op, input, "adaptive_max_pool3d");
  const IntList& o = c.args[1].int_list();
  AXLE_CHECK(o.size() == 3, ValueError, c.op, ": adaptive_max_pool3d(): internal error: output_size.size() must be 3");
  IntList out(input.sizes().begin(), input.sizes().end() - 3);
  out.insert(out.end(), o.begin(), o.end());
  for (int64_t s : o)
    AXLE_CHECK(s >= 0, ValueError, c.op, ": Trying to create tensor with negative dimension ", s, ": ", str(out));
  pool_dtype(c.op, "adaptive_max_pool3d_cpu", input.dtype());
  c.outputs = {{out, input.dtype()}, {out, kInt64}};
}

// conv_transpose3d.input(input, weight, bias, stride, padding, output_padding, groups, dilation)
Stack conv_transpose3d_composite(const Stack& a) {
  bool batched = false;
  const Tensor input = batchify(a[0].tensor(), 3, "conv_transpose3d", batched);
  const Tensor out = call_op("convolution", {input, a[1], a[2], a[3], a[4], a[7], true, a[5], a[6]})[0].tensor();
  return {batched ? out : out.squeeze(0)};
}

}  // namespace

std::vector<OpDecl> conv_pool3d_ops() {
  return {
      {.schema = "conv_transpose3d.input(Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, int[3] "
                 "padding=0, int[3] output_padding=0, int groups=1, int[3] dilation=1) -> Tensor",
       .composite = &conv_transpose3d_composite,
       .doc = "3-d transposed convolution (weight [C_in, C_out / groups, kD, kH, kW]).",
       .flags = kNNFunctional,
       .derivative = {.decomposes = true}},
      {.schema = "max_pool3d_with_indices(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, int[3] "
                 "dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)",
       .shape = &max_pool3d_with_indices_shape,
       .doc = "3-d max pooling with the flat D*H*W index of each maximum.",
       .flags = kNNOnly,
       .derivative = {.vjp = &derivatives::max_pool3d_with_indices, .saves = save_arg(0) | save_output(1)}},
      {.schema = "max_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, int[3] dilation=1, "
                 "bool ceil_mode=False) -> Tensor",
       .shape = &max_pool3d_shape,
       .composite = &max_pool3d_composite,
       .doc = "3-d max pooling (stride [] means kernel_size).",
       .flags = kNNFunctional,
       .derivative = {.decomposes = true}},
      {.schema = "avg_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, bool "
                 "ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor",
       .shape = &avg_pool3d_shape,
       .doc = "3-d average pooling.",
       .flags = kNNOnly,
       .derivative = {.vjp = &derivatives::avg_pool3d, .saves = save_arg(0)}},
      {.schema = "_adaptive_avg_pool3d(Tensor self, int[3] output_size) -> Tensor",
       .shape = &adaptive_avg_pool3d_shape,
       .doc = "Adaptive 3-d average pooling (the kernel behind adaptive_avg_pool3d).",
       .derivative = {.vjp = &derivatives::adaptive_avg_pool3d, .saves = save_arg(0)}},
      {.schema = "adaptive_avg_pool3d(Tensor self, int[3] output_size) -> Tensor",
       .composite = &adaptive_avg_pool3d_composite,
       .doc = "Adaptive 3-d average pooling to output_size.",
       .flags = kNNOnly,
       .derivative = {.decomposes = true}},
      {.schema = "adaptive_max_pool3d(Tensor self, int[3] output_size) -> (Tensor, Tensor)",
       .shape = &adaptive_max_pool3d_shape,
       .doc = "Adaptive 3-d max pooling: values and flat D*H*W indices.",
       .flags = kNNOnly,
       .derivative = {.vjp = &derivatives::adaptive_max_pool3d, .saves = save_arg(0) | save_output(1)}},
  };
}

}  // namespace axle::shape
