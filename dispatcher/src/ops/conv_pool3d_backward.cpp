// The backward ops of 3-d pooling, with torch's aten names and schemas:
// declared ops (a plugin may serve them), whose composites here are written
// with axle ops (device-agnostic and differentiable, so the forward ops'
// formulas in derivatives/conv_pool.cpp get higher-order gradients through them).
#include "conv_pool_util.h"
#include "shape_util.h"

#include <axle/ops.h>
#include <axle/plugin/pooling.hpp>

#include <string>

namespace axle::shape {
namespace {

TensorOptions like(const Tensor& t) { return TensorOptions().dtype(t.dtype()).device(t.device()); }

// grad_output and self of one rank (4 or 5), indices (when given) int64 of grad_output's shape.
void check_pool3d_backward(const char* op, const Tensor& gy, const Tensor& self, const Tensor* indices) {
  (void)wrap_dim(-4, self.dim(), op);  // torch reads self.size(-4) first (IndexError below 4 dims)
  AXLE_CHECK(self.dim() == 4 || self.dim() == 5, ShapeError, op, ": expected a 4-d or 5-d self, got ",
             str(self.sizes()));
  AXLE_CHECK(gy.dim() == self.dim(), ShapeError, op, ": expected grad_output of ", self.dim(), " dims, got ",
             str(gy.sizes()));
  for (int64_t i = 0; i < self.dim() - 3; ++i)
    AXLE_CHECK(gy.size(i) == self.size(i), ShapeError, op, ": grad_output of size ", str(gy.sizes()),
               " does not match self of size ", str(self.sizes()), " in dim ", i);
  AXLE_CHECK(is_floating_point(gy.dtype()), DTypeError, op, ": expected a floating grad_output, got ",
             dtype_name(gy.dtype()));
  if (indices)
    AXLE_CHECK(indices->dtype() == kInt64 && indices->sizes() == gy.sizes(), ShapeError, op,
               ": expected int64 indices of grad_output's shape ", str(gy.sizes()), ", got ",
               dtype_name(indices->dtype()), " ", str(indices->sizes()));
}

void like_self_shape(ShapeContext& c) {
  const Tensor& gy = c.arg(0).tensor();
  const Tensor& self = c.arg(1).tensor();
  check_pool3d_backward(c.op, gy, self, nullptr);
  c.outputs = {{self.sizes(), gy.dtype()}};
}

// max_pool3d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices)
Stack max_pool3d_backward_composite(const Stack& a) {
  check_pool3d_backward("max_pool3d_with_indices_backward", a[0].tensor(), a[1].tensor(), &a[7].tensor());
  return {scatter_to_indices(a[0].tensor(), a[1].tensor(), a[7].tensor(), 3)};
}

// adaptive_max_pool3d_backward(grad_output, self, indices)
Stack adaptive_max_pool3d_backward_composite(const Stack& a) {
  check_pool3d_backward("adaptive_max_pool3d_backward", a[0].tensor(), a[1].tensor(), &a[2].tensor());
  return {scatter_to_indices(a[0].tensor(), a[1].tensor(), a[2].tensor(), 3)};
}

// avg_pool3d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode,
// count_include_pad, divisor_override): each output's gradient divided by its
// window's divisor (torch's rule) and spread over the window: a transposed
// convolution with a ones kernel over the padded input, cut to the input.
Stack avg_pool3d_backward_composite(const Stack& a) {
  const Tensor& gy = a[0].tensor();
  const Tensor& self = a[1].tensor();
  check_pool3d_backward("avg_pool3d_backward", gy, self, nullptr);
  const IntList& kl = a[2].int_list();
  AXLE_CHECK(!kl.empty(), ValueError, "avg_pool3d_backward: kernel_size must not be empty");
  const int64_t nd = self.dim();
  IntList k, s, p, in, out;
  for (size_t i = 0; i < 3; ++i) {
    k.push_back(one_or(kl, i, 0));
    s.push_back(one_or(a[3].int_list(), i, k[i]));
    p.push_back(one_or(a[4].int_list(), i, 0));
    in.push_back(self.size(nd - 3 + static_cast<int64_t>(i)));
    out.push_back(gy.size(nd - 3 + static_cast<int64_t>(i)));
  }
  check_avg_pool_window("avg_pool3d_backward", k, s, p);
  const bool include_pad = a[6].to_bool();
  if (gy.numel() == 0) return {zeros(self.sizes(), like(gy))};
  Tensor divisor = make_empty(out, kFloat64, Device("cpu"));
  double* dp = divisor.data_ptr<double>();
  for (int64_t t = 0; t < out[0]; ++t)
    for (int64_t i = 0; i < out[1]; ++i)
      for (int64_t j = 0; j < out[2]; ++j) {
        const plugin::PoolWindow tw = plugin::avg_pool_window(t, s[0], p[0], k[0], in[0]);
        const plugin::PoolWindow hw = plugin::avg_pool_window(i, s[1], p[1], k[1], in[1]);
        const plugin::PoolWindow ww = plugin::avg_pool_window(j, s[2], p[2], k[2], in[2]);
        const int64_t d = !a[7].is_none() ? a[7].to_int() : plugin::avg_pool3d_divisor(tw, hw, ww, include_pad);
        dp[(t * out[1] + i) * out[2] + j] = static_cast<double>(d);
      }
  const Tensor scaled = gy / divisor.to(gy.device(), gy.dtype());
  const Tensor planes = reshape(scaled.contiguous(), {-1, 1, out[0], out[1], out[2]});
  const Tensor spread = convolution(planes, ones({1, 1, k[0], k[1], k[2]}, like(gy)), std::nullopt, s, {0, 0, 0},
                                    {1, 1, 1}, true, {0, 0, 0}, 1);
  // spread covers padded rows [0, (o - 1) * s + k) per dim: keep [p, p + in), zeros past its end.
  IntList pads;
  for (int64_t i = 2; i >= 0; --i) {
    const int64_t have = spread.size(2 + i);
    pads.insert(pads.end(), {-p[i], p[i] + in[i] - have});
  }
  const Tensor cut = call_op("pad", {spread, pads, std::string("constant"), Value()})[0].tensor();
  return {reshape(cut.contiguous(), self.sizes())};
}

// _adaptive_avg_pool3d_backward(grad_output, self): the forward averages separably
// (A_d, A_h, A_w per dim), so the gradient applies their transposes per dim.
Stack adaptive_avg_pool3d_backward_composite(const Stack& a) {
  const Tensor& gy = a[0].tensor();
  const Tensor& self = a[1].tensor();
  check_pool3d_backward("_adaptive_avg_pool3d_backward", gy, self, nullptr);
  const int64_t nd = self.dim();
  const int64_t od = gy.size(nd - 3), oh = gy.size(nd - 2), D = self.size(nd - 3), H = self.size(nd - 2);
  const int64_t W = self.size(nd - 1);
  const Tensor ad = adaptive_matrix(od, D, gy);
  const Tensor ah = adaptive_matrix(oh, H, gy);
  const Tensor aw = adaptive_matrix(gy.size(nd - 1), W, gy);
  IntList lead(self.sizes().begin(), self.sizes().end() - 3);
  const Tensor gw = matmul(gy, aw);     // [..., od, oh, W]
  const Tensor gh = matmul(t(ah), gw);  // [..., od, H, W]
  IntList flat = lead, full = lead;
  flat.insert(flat.end(), {od, H * W});
  full.insert(full.end(), {D, H, W});
  const Tensor gd = matmul(t(ad), reshape(gh.contiguous(), flat));  // [..., D, H * W]
  return {reshape(gd, full)};
}

}  // namespace

std::vector<OpDecl> conv_pool3d_backward_ops() {
  return {
      {.schema = "max_pool3d_with_indices_backward(Tensor grad_output, Tensor self, int[3] kernel_size, int[3] "
                 "stride, int[3] padding, int[3] dilation, bool ceil_mode, Tensor indices) -> Tensor",
       .shape = &like_self_shape,
       .composite = &max_pool3d_backward_composite,
       .doc = "max_pool3d's input gradient: grad_output added at indices (a scatter_add over D*H*W).",
       .derivative = {.decomposes = true}},
      {.schema = "avg_pool3d_backward(Tensor grad_output, Tensor self, int[3] kernel_size, int[3] stride, int[3] "
                 "padding, bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor",
       .shape = &like_self_shape,
       .composite = &avg_pool3d_backward_composite,
       .doc = "avg_pool3d's input gradient (a transposed 3-d convolution with a ones kernel).",
       .derivative = {.decomposes = true}},
      {.schema = "_adaptive_avg_pool3d_backward(Tensor grad_output, Tensor self) -> Tensor",
       .shape = &like_self_shape,
       .composite = &adaptive_avg_pool3d_backward_composite,
       .doc = "_adaptive_avg_pool3d's input gradient (window-averaging matrices per dim).",
       .derivative = {.decomposes = true}},
      {.schema = "adaptive_max_pool3d_backward(Tensor grad_output, Tensor self, Tensor indices) -> Tensor",
       .shape = &like_self_shape,
       .composite = &adaptive_max_pool3d_backward_composite,
       .doc = "adaptive_max_pool3d's input gradient: grad_output added at indices.",
       .derivative = {.decomposes = true}},
  };
}

}  // namespace axle::shape
