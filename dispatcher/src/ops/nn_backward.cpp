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

bool wanted(const Value& mask, size_t i) {
  const IntList& m = mask.int_list();
  AXLE_CHECK(m.size() == 3, ValueError, "output_mask must have 3 elements, got ", str(m));
  return m[i] != 0;
}

Tensor rsqrt_of(const Tensor& t) { return derivatives::call(AXLE_OP("rsqrt"), t); }

// ------------------------------------------------------------ native_batch_norm_backward
// (grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train, eps, output_mask).
// Training: batch statistics (save_mean / save_invstd, recomputed from input when
// None: axle's batch_norm does not return them); evaluation: the running ones.
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
  (void)wanted(a[9], 0);
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
  if (wanted(a[9], 0)) {
    const Tensor gxhat = has_w ? g * reshape(a[2].tensor(), bshape) : g;
    gx = train ? invstd * (gxhat - mean(gxhat, dims, true) - xhat * mean(gxhat * xhat, dims, true)) : gxhat * invstd;
  }
  if (wanted(a[9], 1)) gw = sum(g * xhat, dims);
  if (wanted(a[9], 2)) gb = sum(g, dims);
  return {gx, gw, gb};
}

void batch_norm_backward_shape(ShapeContext& c) {
  const Tensor& g = c.arg(0).tensor();
  const Tensor& x = c.arg(1).tensor();
  check_same_shape(c.op, g, x);
  (void)wanted(c.arg(9), 0);
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
  (void)wanted(a[9], 0);
  AXLE_CHECK(n == x.size(0) && ch == x.size(1) && groups > 0 && ch % groups == 0, ValueError,
             "native_group_norm_backward: N=", n, ", C=", ch, " and group=", groups, " do not fit input of size ",
             str(x.sizes()));
  const bool has_w = !a[4].is_none();
  Tensor gx, gw, gb;
  if (x.numel() == 0) {
    const TensorOptions o = like(g);
    return {wanted(a[9], 0) ? zeros(x.sizes(), o) : Tensor(), wanted(a[9], 1) ? zeros({ch}, o) : Tensor(),
            wanted(a[9], 2) ? zeros({ch}, o) : Tensor()};
  }
  const Tensor xhat =
      (reshape(x, {n, groups, -1}) - reshape(a[2].tensor(), {n, groups, 1})) * reshape(a[3].tensor(), {n, groups, 1});
  if (wanted(a[9], 0)) {
    const Tensor gc = reshape(g, {n, ch, -1});
    const Tensor gxhat = reshape(has_w ? gc * reshape(a[4].tensor(), {1, ch, 1}) : gc, {n, groups, -1});
    const Tensor r = reshape(a[3].tensor(), {n, groups, 1});
    gx = reshape(r * (gxhat - mean(gxhat, {2}, true) - xhat * mean(gxhat * xhat, {2}, true)), x.sizes());
  }
  if (wanted(a[9], 1)) gw = sum(reshape(g, {n, ch, -1}) * reshape(xhat, {n, ch, -1}), {0, 2});
  if (wanted(a[9], 2)) gb = sum(reshape(g, {n, ch, -1}), {0, 2});
  return {gx, gw, gb};
}

void group_norm_backward_shape(ShapeContext& c) {
  const Tensor& x = c.arg(1).tensor();
  (void)wanted(c.arg(9), 0);
  const int64_t ch = c.arg(6).to_int();
  const DType pd = c.arg(4).is_none() ? x.dtype() : c.arg(4).tensor().dtype();
  c.outputs = {{x.sizes(), x.dtype()}, {{ch}, pd}, {{ch}, pd}};
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
              "save_mean / save_invstd None: recomputed from input (axle's batch_norm does not return them).",
       .derivative = {.decomposes = true}},
      {.schema = "native_group_norm_backward(Tensor grad_out, Tensor input, Tensor mean, Tensor rstd, Tensor? weight, "
                 "int N, int C, int HxW, int group, int[3] output_mask) -> (Tensor, Tensor, Tensor)",
       .shape = &group_norm_backward_shape,
       .composite = &group_norm_backward_composite,
       .doc = "group_norm's gradients (input, weight, bias) from the per-(sample, group) mean and rstd [N, group]; "
              "output_mask is 0/1 each (torch's bool[3]).",
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
