// The backward ops of the norms and resampling ops of nn.cpp, with torch's aten
// names and schemas: declared ops, so a plugin may serve them with a library's
// fused backward primitive; every other device runs the composite here, written
// with axle ops (differentiable: the formulas in derivatives/nn.cpp get
// higher-order gradients through them). Axle's schemas have no bool[]:
// output_mask is int[3] (0 or 1 per output); an output it leaves out is an
// undefined tensor, as torch's.
#include "../derivatives/derivatives.h"
#include "shape_util.h"

#include <axle/ops.h>

#include <algorithm>
#include <cmath>
#include <optional>

namespace axle::shape {
namespace {

TensorOptions like(const Tensor& t) { return TensorOptions().dtype(t.dtype()).device(t.device()); }

Tensor rsqrt_of(const Tensor& t) { return derivatives::call(AXLE_OP("rsqrt"), t); }

// ------------------------------------------------------------ native_batch_norm_backward
// (grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train, eps, output_mask).
// Training: batch statistics (save_mean / save_invstd, recomputed from input when
// None, as in a direct call: the batch_norm op keeps them in scratch); evaluation:
// the running ones.
void check_same_shape(const char* op, const Tensor& g, const Tensor& x) {
  AXLE_CHECK(x.dim() >= 2 && g.sizes() == x.sizes(), ShapeError, op,
             ": expected grad_out and input of one shape (N, C, ...), got ", str(g.sizes()), " and ", str(x.sizes()));
  AXLE_CHECK(is_floating_point(g.dtype()), DTypeError, op, ": expected a floating grad_out, got ",
             dtype_name(g.dtype()));
}

Stack batch_norm_backward_composite(const Stack& a) {
  const Tensor& g = a[0].tensor();
  const Tensor& x = a[1].tensor();
  check_same_shape("native_batch_norm_backward", g, x);
  (void)output_wanted(a[9], 0);
  const bool train = a[7].to_bool();
  const double eps = a[8].to_double();
  const int64_t nd = x.dim(), ch = x.size(1);
  IntList dims{0}, bshape(static_cast<size_t>(nd), 1);
  for (int64_t d = 2; d < nd; ++d) dims.push_back(d);
  bshape[1] = ch;
  Tensor mu, invstd;
  if (train) {
    mu = a[5].is_none() ? mean(x, dims, true) : reshape(a[5].tensor(), bshape);
    if (a[6].is_none()) {
      const Tensor centered = x - mu;
      invstd = rsqrt_of(mean(centered * centered, dims, true) + scalar_to_tensor(Scalar(eps)));
    } else {
      invstd = reshape(a[6].tensor(), bshape);
    }
  } else {
    AXLE_CHECK(!a[3].is_none() && !a[4].is_none(), ValueError,
               "native_batch_norm_backward: running_mean and running_var are needed when train=False");
    mu = reshape(a[3].tensor(), bshape);
    invstd = rsqrt_of(reshape(a[4].tensor(), bshape) + scalar_to_tensor(Scalar(eps)));
  }
  const bool has_w = !a[2].is_none();
  const Tensor xhat = (x - mu) * invstd;
  Tensor gx, gw, gb;
  if (output_wanted(a[9], 0)) {
    const Tensor gxhat = has_w ? g * reshape(a[2].tensor(), bshape) : g;
    gx = train ? invstd * (gxhat - mean(gxhat, dims, true) - xhat * mean(gxhat * xhat, dims, true)) : gxhat * invstd;
  }
  if (output_wanted(a[9], 1)) gw = sum(g * xhat, dims);
  if (output_wanted(a[9], 2)) gb = sum(g, dims);
  return {gx, gw, gb};
}

void batch_norm_backward_shape(ShapeContext& c) {
  const Tensor& g = c.arg(0).tensor();
  const Tensor& x = c.arg(1).tensor();
  check_same_shape(c.op, g, x);
  (void)output_wanted(c.arg(9), 0);
  const DType pd = c.arg(2).is_none() ? x.dtype() : c.arg(2).tensor().dtype();
  c.outputs = {{x.sizes(), x.dtype()}, {{x.size(1)}, pd}, {{x.size(1)}, pd}};
}

// ------------------------------------------------------------ native_group_norm_backward
// (grad_out, input, mean [N, group], rstd [N, group], weight, N, C, HxW, group, output_mask).
Stack group_norm_backward_composite(const Stack& a) {
  // Contiguous first: reshape would not copy a channels_last tensor into these views.
  const Tensor g = a[0].tensor().contiguous();
  const Tensor x = a[1].tensor().contiguous();
  const int64_t n = a[5].to_int(), ch = a[6].to_int(), groups = a[8].to_int();
  check_same_shape("native_group_norm_backward", g, x);
  (void)output_wanted(a[9], 0);
  AXLE_CHECK(n == x.size(0) && ch == x.size(1) && groups > 0 && ch % groups == 0, ValueError,
             "native_group_norm_backward: N=", n, ", C=", ch, " and group=", groups, " do not fit input of size ",
             str(x.sizes()));
  const bool has_w = !a[4].is_none();
  Tensor gx, gw, gb;
  if (x.numel() == 0) {
    const TensorOptions o = like(g);
    return {output_wanted(a[9], 0) ? zeros(x.sizes(), o) : Tensor(), output_wanted(a[9], 1) ? zeros({ch}, o) : Tensor(),
            output_wanted(a[9], 2) ? zeros({ch}, o) : Tensor()};
  }
  const Tensor xhat =
      (reshape(x, {n, groups, -1}) - reshape(a[2].tensor(), {n, groups, 1})) * reshape(a[3].tensor(), {n, groups, 1});
  if (output_wanted(a[9], 0)) {
    const Tensor gc = reshape(g, {n, ch, -1});
    const Tensor gxhat = reshape(has_w ? gc * reshape(a[4].tensor(), {1, ch, 1}) : gc, {n, groups, -1});
    const Tensor r = reshape(a[3].tensor(), {n, groups, 1});
    gx = reshape(r * (gxhat - mean(gxhat, {2}, true) - xhat * mean(gxhat * xhat, {2}, true)), x.sizes());
  }
  if (output_wanted(a[9], 1)) gw = sum(reshape(g, {n, ch, -1}) * reshape(xhat, {n, ch, -1}), {0, 2});
  if (output_wanted(a[9], 2)) gb = sum(reshape(g, {n, ch, -1}), {0, 2});
  return {gx, gw, gb};
}

void group_norm_backward_shape(ShapeContext& c) {
  const Tensor& x = c.arg(1).tensor();
  (void)output_wanted(c.arg(9), 0);
  const int64_t ch = c.arg(6).to_int();
  const DType pd = c.arg(4).is_none() ? x.dtype() : c.arg(4).tensor().dtype();
  c.outputs = {{x.sizes(), x.dtype()}, {{ch}, pd}, {{ch}, pd}};
}

// ------------------------------------------------------------ native_layer_norm_backward
// (grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask, eps).
// mean / rstd hold one value per normalized row (torch's [*, 1, ...] shape, or
// any shape of that many elements); None: recomputed from input with eps
// (axle's layer_norm returns neither; torch's schema has no eps and needs both).
struct LayerNormRows {
  IntList dims;        // the normalized (trailing) dims
  IntList stat_shape;  // input's sizes with the normalized dims as 1
  int64_t rows = 1;
};

LayerNormRows check_layer_norm_backward(const char* op, const Stack& a) {
  const Tensor& g = a[0].tensor();
  const Tensor& x = a[1].tensor();
  const IntList& ns = a[2].int_list();
  const int64_t k = static_cast<int64_t>(ns.size());
  bool fits = k > 0 && k <= x.dim();
  for (int64_t i = 0; fits && i < k; ++i) fits = x.size(x.dim() - k + i) == ns[static_cast<size_t>(i)];
  AXLE_CHECK(fits, ShapeError, op, ": normalized_shape ", str(ns),
             " does not match the trailing dims of input of size ", str(x.sizes()));
  AXLE_CHECK(g.sizes() == x.sizes(), ShapeError, op, ": expected grad_out of the input's size ", str(x.sizes()),
             ", got ", str(g.sizes()));
  AXLE_CHECK(is_floating_point(x.dtype()) && g.dtype() == x.dtype(), DTypeError, op,
             ": expected a floating input and grad_out of one dtype, got ", dtype_name(x.dtype()), " and ",
             dtype_name(g.dtype()));
  LayerNormRows r;
  r.stat_shape = x.sizes();
  for (int64_t d = x.dim() - k; d < x.dim(); ++d) {
    r.dims.push_back(d);
    r.stat_shape[static_cast<size_t>(d)] = 1;
  }
  for (int64_t d = 0; d < x.dim() - k; ++d) r.rows *= x.size(d);
  for (auto [i, name] : {std::pair{3, "mean"}, std::pair{4, "rstd"}})
    if (!a[i].is_none())
      AXLE_CHECK(a[i].tensor().numel() == r.rows && a[i].tensor().dtype() == x.dtype(), ShapeError, op, ": expected ",
                 name, " of ", r.rows, " elements (one per normalized row) of dtype ", dtype_name(x.dtype()), ", got ",
                 str(a[i].tensor().sizes()), " of ", dtype_name(a[i].tensor().dtype()));
  for (auto [i, name] : {std::pair{5, "weight"}, std::pair{6, "bias"}})
    if (!a[i].is_none())
      AXLE_CHECK(a[i].tensor().sizes() == ns && a[i].tensor().dtype() == x.dtype(), ShapeError, op, ": expected ", name,
                 " of size ", str(ns), " and dtype ", dtype_name(x.dtype()), ", got ", str(a[i].tensor().sizes()),
                 " of ", dtype_name(a[i].tensor().dtype()));
  (void)output_wanted(a[7], 0);
  return r;
}

Stack layer_norm_backward_composite(const Stack& a) {
  const LayerNormRows r = check_layer_norm_backward("native_layer_norm_backward", a);
  const Tensor& g = a[0].tensor();
  const Tensor& x = a[1].tensor();
  const Tensor mu = a[3].is_none() ? mean(x, r.dims, true) : reshape(a[3].tensor(), r.stat_shape);
  Tensor rstd;
  if (a[4].is_none()) {
    const Tensor centered = x - mu;
    rstd = rsqrt_of(mean(centered * centered, r.dims, true) + scalar_to_tensor(Scalar(a[8].to_double())));
  } else {
    rstd = reshape(a[4].tensor(), r.stat_shape);
  }
  const Tensor xhat = (x - mu) * rstd;
  IntList lead;
  for (int64_t d = 0; d < x.dim() - static_cast<int64_t>(r.dims.size()); ++d) lead.push_back(d);
  Tensor gx, gw, gb;
  if (output_wanted(a[7], 0)) {
    const Tensor gxhat = a[5].is_none() ? g : g * a[5].tensor();
    gx = rstd * (gxhat - mean(gxhat, r.dims, true) - xhat * mean(gxhat * xhat, r.dims, true));
  }
  // Summed over the leading dims (none: the product itself).
  auto over_rows = [&](const Tensor& t) { return lead.empty() ? t : sum(t, lead); };
  if (output_wanted(a[7], 1)) gw = over_rows(g * xhat);
  if (output_wanted(a[7], 2)) gb = over_rows(g);
  return {gx, gw, gb};
}

void layer_norm_backward_shape(ShapeContext& c) {
  check_layer_norm_backward(c.op, c.args);
  const Tensor& x = c.arg(1).tensor();
  const IntList& ns = c.arg(2).int_list();
  c.outputs = {{x.sizes(), x.dtype()}, {ns, x.dtype()}, {ns, x.dtype()}};
  // An output the mask leaves out is not allocated (a kernel leaves it undefined, as the composite).
  for (size_t i = 0; i < 3; ++i)
    if (!output_wanted(c.arg(7), i)) c.outputs[i].data_dependent = true;
}

// ------------------------------------------------------------ softmax backward
// _softmax_backward_data / _log_softmax_backward_data(grad_output, output, dim,
// input_dtype): torch's names and schemas; the result has the forward input's dtype.
void check_softmax_backward(const char* op, const Tensor& g, const Tensor& y, DType input_dtype) {
  AXLE_CHECK(g.sizes() == y.sizes(), ShapeError, op, ": expected grad_output of the output's size ", str(y.sizes()),
             ", got ", str(g.sizes()));
  AXLE_CHECK(is_floating_point(y.dtype()) && g.dtype() == y.dtype() && is_floating_point(input_dtype), DTypeError, op,
             ": expected floating grad_output and output of one dtype and a floating input_dtype, got ",
             dtype_name(g.dtype()), ", ", dtype_name(y.dtype()), " and ", dtype_name(input_dtype));
}

template <bool Log>
Stack softmax_backward_composite(const Stack& a) {
  const Tensor& g = a[0].tensor();
  const Tensor& y = a[1].tensor();
  const char* op = Log ? "_log_softmax_backward_data" : "_softmax_backward_data";
  check_softmax_backward(op, g, y, a[3].dtype());
  const int64_t dim = wrap_dim(a[2].to_int(), std::max<int64_t>(y.dim(), 1), op);
  Tensor gx;
  if (Log) {
    gx = g - exp(y) * sum(g, {dim}, true);
  } else {
    const Tensor gy = g * y;
    gx = gy - y * sum(gy, {dim}, true);
  }
  return {gx.dtype() == a[3].dtype() ? gx : gx.to(a[3].dtype())};
}

void softmax_backward_shape(ShapeContext& c) {
  const Tensor& g = c.arg(0).tensor();
  const Tensor& y = c.arg(1).tensor();
  check_softmax_backward(c.op, g, y, c.arg(3).dtype());
  c.args[2] = wrap_dim(c.args[2].to_int(), std::max<int64_t>(y.dim(), 1), c.op);
  c.outputs = {{y.sizes(), c.arg(3).dtype()}};
}

// ------------------------------------------------------------ upsample backward
// Resampling is linear and separable: the forward is M_h x M_w^T with an
// [out, in] interpolation matrix per dim (the reference kernels' index rules,
// torch's), so the gradient is M_h^T g M_w.
std::optional<double> opt(const Value& v) { return v.is_none() ? std::nullopt : std::optional<double>(v.to_double()); }

Tensor nearest_matrix(int64_t out, int64_t in, std::optional<double> scale, const Tensor& g) {
  Tensor m = zeros({out, in}, TensorOptions().dtype(kFloat64));
  double* p = m.data_ptr<double>();
  const float s =
      (scale && *scale > 0) ? static_cast<float>(1.0 / *scale) : static_cast<float>(in) / static_cast<float>(out);
  for (int64_t o = 0; o < out; ++o) {
    int64_t i = std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * s)), in - 1);
    if (out == in) i = o;
    if (out == 2 * in) i = o >> 1;
    p[o * in + i] = 1.0;
  }
  return m.to(g.device(), g.dtype());
}

// torch's area_pixel_compute_scale / area_pixel_compute_source_index in the
// kernels' compute type S (float below float64).
template <typename S>
Tensor linear_matrix(int64_t out, int64_t in, bool align_corners, std::optional<double> scale, const Tensor& g) {
  Tensor m = zeros({out, in}, TensorOptions().dtype(kFloat64));
  double* p = m.data_ptr<double>();
  S s;
  if (align_corners)
    s = out > 1 ? static_cast<S>(in - 1) / static_cast<S>(out - 1) : S(0);
  else
    s = (scale && *scale > 0) ? static_cast<S>(1.0 / *scale) : static_cast<S>(in) / static_cast<S>(out);
  for (int64_t o = 0; o < out; ++o) {
    S src = align_corners ? s * static_cast<S>(o) : s * (static_cast<S>(o) + S(0.5)) - S(0.5);
    if (src < 0) src = 0;
    const int64_t i0 = std::min(static_cast<int64_t>(src), in - 1);
    const S l1 = std::min(src - static_cast<S>(i0), S(1));
    p[o * in + i0] += static_cast<double>(S(1) - l1);
    p[o * in + i0 + (i0 < in - 1 ? 1 : 0)] += static_cast<double>(l1);
  }
  return m.to(g.device(), g.dtype());
}

Tensor resample_back(const Tensor& g, const Tensor& mh, const Tensor& mw) { return matmul(matmul(t(mh), g), mw); }

void check_sizes(const Tensor& g, const Value& output_size, const Value& input_size) {
  AXLE_CHECK(output_size.int_list().size() == 2, ValueError,
             "upsample backward: expected output_size of 2 values, got ", str(output_size.int_list()));
  AXLE_CHECK(input_size.int_list().size() == 4, ValueError, "upsample backward: expected input_size of 4 values, got ",
             str(input_size.int_list()));
  const IntList& o = output_size.int_list();
  const IntList& in = input_size.int_list();
  AXLE_CHECK(g.dim() == 4 && g.size(0) == in[0] && g.size(1) == in[1] && g.size(2) == o[0] && g.size(3) == o[1],
             ShapeError, "upsample backward: expected grad_output of size [", in[0], ", ", in[1], ", ", o[0], ", ",
             o[1], "], got ", str(g.sizes()));
  AXLE_CHECK(in[2] > 0 && in[3] > 0 && is_floating_point(g.dtype()), ValueError,
             "upsample backward: expected a positive input size and a floating grad_output");
}

// upsample_nearest2d_backward(grad_output, output_size, input_size, scales_h, scales_w)
Stack upsample_nearest_backward_composite(const Stack& a) {
  const Tensor& g = a[0].tensor();
  check_sizes(g, a[1], a[2]);
  const IntList& o = a[1].int_list();
  const IntList& in = a[2].int_list();
  return {resample_back(g, nearest_matrix(o[0], in[2], opt(a[3]), g), nearest_matrix(o[1], in[3], opt(a[4]), g))};
}

// upsample_bilinear2d_backward(grad_output, output_size, input_size, align_corners, scales_h, scales_w)
Stack upsample_bilinear_backward_composite(const Stack& a) {
  const Tensor& g = a[0].tensor();
  check_sizes(g, a[1], a[2]);
  const IntList& o = a[1].int_list();
  const IntList& in = a[2].int_list();
  const bool align = a[3].to_bool();
  if (g.dtype() == kFloat64)
    return {resample_back(g, linear_matrix<double>(o[0], in[2], align, opt(a[4]), g),
                          linear_matrix<double>(o[1], in[3], align, opt(a[5]), g))};
  return {resample_back(g, linear_matrix<float>(o[0], in[2], align, opt(a[4]), g),
                        linear_matrix<float>(o[1], in[3], align, opt(a[5]), g))};
}

void upsample_backward_shape(ShapeContext& c) {
  const Tensor& g = c.arg(0).tensor();
  check_sizes(g, c.arg(1), c.arg(2));
  c.outputs = {{c.arg(2).int_list(), g.dtype()}};
}

}  // namespace

std::vector<OpDecl> nn_backward_ops() {
  return {
      {.schema = "native_batch_norm_backward(Tensor grad_out, Tensor input, Tensor? weight, Tensor? running_mean, "
                 "Tensor? running_var, Tensor? save_mean, Tensor? save_invstd, bool train, float eps, int[3] "
                 "output_mask) -> (Tensor, Tensor, Tensor)",
       .shape = &batch_norm_backward_shape,
       .composite = &batch_norm_backward_composite,
       .doc = "batch_norm's gradients (input, weight, bias) where output_mask (0/1 each; torch's bool[3]) asks; "
              "save_mean / save_invstd None: recomputed from input (the batch_norm op does not return them).",
       .derivative = {.decomposes = true}},
      {.schema = "native_group_norm_backward(Tensor grad_out, Tensor input, Tensor mean, Tensor rstd, Tensor? weight, "
                 "int N, int C, int HxW, int group, int[3] output_mask) -> (Tensor, Tensor, Tensor)",
       .shape = &group_norm_backward_shape,
       .composite = &group_norm_backward_composite,
       .doc = "group_norm's gradients (input, weight, bias) from the per-(sample, group) mean and rstd [N, group]; "
              "output_mask is 0/1 each (torch's bool[3]).",
       .derivative = {.decomposes = true}},
      {.schema = "native_layer_norm_backward(Tensor grad_out, Tensor input, int[] normalized_shape, Tensor? mean, "
                 "Tensor? rstd, Tensor? weight, Tensor? bias, int[3] output_mask, float eps=1e-05) -> (Tensor, Tensor, "
                 "Tensor)",
       .shape = &layer_norm_backward_shape,
       .composite = &layer_norm_backward_composite,
       .doc = "layer_norm's gradients (input, weight, bias) where output_mask (0/1 each; torch's bool[3]) asks, else "
              "undefined; mean / rstd (one per row) None: recomputed from input with eps (torch's schema has no eps).",
       .derivative = {.decomposes = true}},
      {.schema = "_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor",
       .shape = &softmax_backward_shape,
       .composite = &softmax_backward_composite<false>,
       .doc = "softmax's input gradient from its output y: y * (g - sum(g * y, dim)), in input_dtype.",
       .derivative = {.decomposes = true}},
      {.schema = "_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> "
                 "Tensor",
       .shape = &softmax_backward_shape,
       .composite = &softmax_backward_composite<true>,
       .doc = "log_softmax's input gradient from its output y: g - exp(y) * sum(g, dim), in input_dtype.",
       .derivative = {.decomposes = true}},
      {.schema = "upsample_nearest2d_backward(Tensor grad_output, int[2] output_size, int[4] input_size, float? "
                 "scales_h=None, float? scales_w=None) -> Tensor",
       .shape = &upsample_backward_shape,
       .composite = &upsample_nearest_backward_composite,
       .doc = "upsample_nearest2d's input gradient (selection matrices on both sides).",
       .derivative = {.decomposes = true}},
      {.schema = "upsample_bilinear2d_backward(Tensor grad_output, int[2] output_size, int[4] input_size, bool "
                 "align_corners, float? scales_h=None, float? scales_w=None) -> Tensor",
       .shape = &upsample_backward_shape,
       .composite = &upsample_bilinear_backward_composite,
       .doc = "upsample_bilinear2d's input gradient (interpolation matrices on both sides).",
       .derivative = {.decomposes = true}},
  };
}

}  // namespace axle::shape
