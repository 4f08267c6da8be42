// The backward ops of convolution and 2-d pooling, with torch's aten names and
// schemas: declared ops, so a plugin may serve them with a library's fused
// backward primitive (oneDNN, cuDNN); every other device runs the composite
// here, written with axle ops (device-agnostic and differentiable, so the
// forward ops' formulas in derivatives/conv_pool.cpp get higher-order gradients
// through them). Axle's schemas have no bool[]: output_mask is int[3] (0 or 1
// per output), and an output it leaves out is an undefined tensor, as torch's.
#include "../derivatives/derivatives.h"
#include "conv_pool_util.h"
#include "shape_util.h"

#include <axle/ops.h>
#include <axle/plugin/pooling.hpp>

#include <string>

namespace axle::shape {
namespace {

TensorOptions like(const Tensor& t) { return TensorOptions().dtype(t.dtype()).device(t.device()); }

// One value per spatial dim (a single value is broadcast, as convolution's).
IntList per_dim(const IntList& p, int64_t dim) { return p.size() == 1 ? IntList(static_cast<size_t>(dim), p[0]) : p; }

// ---------------------------------------------------------------- convolution_backward

// The weight gradient of y = convolution(x, w) (not transposed): per group,
// gw[o, c, k] = sum over n, j of gy[n, o, j] * x_padded[n, c, j * stride + k * dilation],
// a convolution of x (channels as batch) with gy (channels as batch) whose
// stride and dilation swap; the result can reach past the kernel and is narrowed.
Tensor conv_weight_grad(const Tensor& x, const Tensor& gy, const IntList& ws, const IntList& stride,
                        const IntList& padding, const IntList& dilation, int64_t groups) {
  const int64_t dim = static_cast<int64_t>(ws.size()) - 2;
  if (x.numel() == 0 || gy.numel() == 0) return zeros(ws, like(gy));
  const int64_t cin_g = ws[1], cout_g = ws[0] / groups;
  std::vector<Tensor> parts;
  for (int64_t g = 0; g < groups; ++g) {
    const Tensor xg = transpose(narrow(x, 1, g * cin_g, cin_g), 0, 1);
    const Tensor gg = transpose(narrow(gy, 1, g * cout_g, cout_g), 0, 1);
    Tensor r = convolution(xg, gg, std::nullopt, dilation, padding, stride, false, IntList(dim, 0), 1);
    for (int64_t d = 0; d < dim; ++d) r = narrow(r, 2 + d, 0, ws[2 + d]);
    parts.push_back(transpose(r, 0, 1));
  }
  return groups == 1 ? parts[0] : cat(parts, 0);
}

void check_convolution_backward(const char* op, const Tensor& gy, const Tensor& x, const Tensor& w, const Stack& a) {
  AXLE_CHECK(w.dim() >= 3 && x.dim() == w.dim() && gy.dim() == w.dim(), ShapeError, op,
             ": expected grad_output, input and weight of the same rank (at least 3), got ", str(gy.sizes()), ", ",
             str(x.sizes()), " and ", str(w.sizes()));
  AXLE_CHECK(gy.dtype() == x.dtype() && w.dtype() == x.dtype(), DTypeError, op,
             ": expected grad_output, input and weight of one dtype, got ", dtype_name(gy.dtype()), ", ",
             dtype_name(x.dtype()), " and ", dtype_name(w.dtype()));
  const int64_t dim = w.dim() - 2, groups = a[9].to_int();
  for (size_t i : {4, 5, 6, 8})
    AXLE_CHECK(a[i].int_list().size() == 1 || static_cast<int64_t>(a[i].int_list().size()) == dim, ValueError, op,
               ": expected 1 or ", dim, " values per int list, got ", str(a[i].int_list()));
  AXLE_CHECK(groups > 0 && w.size(0) % groups == 0, ValueError, op, ": groups ", groups,
             " must be positive and divide weight's first dim ", w.size(0));
  // grad_output must be the convolution's output: batch, channels and (plain) spatial size.
  const bool transposed = a[7].to_bool();
  const int64_t in_channels = transposed ? w.size(0) : w.size(1) * groups;
  const int64_t out_channels = transposed ? w.size(1) * groups : w.size(0);
  AXLE_CHECK(x.size(0) == gy.size(0) && x.size(1) == in_channels && gy.size(1) == out_channels, ShapeError, op,
             ": grad_output of size ", str(gy.sizes()), " is not the output of a convolution of input ", str(x.sizes()),
             " with weight ", str(w.sizes()), " and groups ", groups);
  if (!transposed) {
    const IntList stride = per_dim(a[4].int_list(), dim), padding = per_dim(a[5].int_list(), dim);
    const IntList dilation = per_dim(a[6].int_list(), dim);
    for (int64_t d = 0; d < dim; ++d) {
      const int64_t extent = dilation[static_cast<size_t>(d)] * (w.size(2 + d) - 1) + 1;
      const int64_t out =
          (x.size(2 + d) + 2 * padding[static_cast<size_t>(d)] - extent) / stride[static_cast<size_t>(d)] + 1;
      AXLE_CHECK(stride[static_cast<size_t>(d)] > 0 && gy.size(2 + d) == out, ShapeError, op, ": grad_output of size ",
                 str(gy.sizes()), " is not the output of a convolution of input ", str(x.sizes()), " with weight ",
                 str(w.sizes()), " (spatial dim ", d, ": expected ", out, ")");
    }
  }
  (void)output_wanted(a[10], 0);
}

// convolution_backward(grad_output, input, weight, bias_sizes, stride, padding,
// dilation, transposed, output_padding, groups, output_mask)
Stack convolution_backward_composite(const Stack& a) {
  const Tensor& gy = a[0].tensor();
  const Tensor& x = a[1].tensor();
  const Tensor& w = a[2].tensor();
  check_convolution_backward("convolution_backward", gy, x, w, a);
  const int64_t dim = w.dim() - 2;
  const IntList stride = per_dim(a[4].int_list(), dim), padding = per_dim(a[5].int_list(), dim);
  const IntList dilation = per_dim(a[6].int_list(), dim);
  const bool transposed = a[7].to_bool();
  const int64_t groups = a[9].to_int();
  Tensor gx, gw, gb;
  if (!transposed) {
    if (output_wanted(a[10], 0)) {
      // The adjoint of a convolution is the transposed one; output_padding
      // restores the input rows the strided windows never reached.
      IntList op;
      for (int64_t d = 0; d < dim; ++d)
        op.push_back(x.size(2 + d) -
                     ((gy.size(2 + d) - 1) * stride[d] - 2 * padding[d] + dilation[d] * (w.size(2 + d) - 1) + 1));
      gx = convolution(gy, w, std::nullopt, stride, padding, dilation, true, op, groups);
    }
    if (output_wanted(a[10], 1)) gw = conv_weight_grad(x, gy, w.sizes(), stride, padding, dilation, groups);
  } else {
    // y = convolution_transposed(x, w) is the adjoint of z = convolution(y', w):
    // <y, gy> = <x, convolution(gy, w)>, cut to x's size (output_padding can add a row).
    if (output_wanted(a[10], 0)) {
      gx = convolution(gy, w, std::nullopt, stride, padding, dilation, false, IntList(dim, 0), groups);
      for (int64_t d = 0; d < dim; ++d)
        if (gx.size(2 + d) != x.size(2 + d)) gx = narrow(gx, 2 + d, 0, x.size(2 + d));
    }
    if (output_wanted(a[10], 1)) gw = conv_weight_grad(gy, x, w.sizes(), stride, padding, dilation, groups);
  }
  if (output_wanted(a[10], 2)) {
    IntList dims{0};
    for (int64_t d = 0; d < dim; ++d) dims.push_back(2 + d);
    gb = sum(gy, dims);
  }
  return {gx, gw, gb};
}

void convolution_backward_shape(ShapeContext& c) {
  const Tensor& gy = c.arg(0).tensor();
  const Tensor& x = c.arg(1).tensor();
  const Tensor& w = c.arg(2).tensor();
  check_convolution_backward(c.op, gy, x, w, c.args);
  const IntList bias = c.arg(3).is_none() ? IntList{0} : c.arg(3).int_list();
  c.outputs = {{x.sizes(), x.dtype()}, {w.sizes(), w.dtype()}, {bias, gy.dtype()}};
  // channels_last in, channels_last gradients (as the forward's output): the
  // libraries' backward passes then see one layout throughout (cuDNN mixes none).
  if (x.dim() == 4 && (suggest_memory_format(x) == MemoryFormat::ChannelsLast ||
                       suggest_memory_format(w) == MemoryFormat::ChannelsLast)) {
    c.outputs[0].memory_format = MemoryFormat::ChannelsLast;
    c.outputs[1].memory_format = MemoryFormat::ChannelsLast;
  }
  // An output the mask leaves out is not allocated: a kernel sees it with no
  // data and leaves it so (undefined, as the composite returns it).
  for (size_t i = 0; i < 3; ++i)
    if (!output_wanted(c.arg(10), i)) c.outputs[i].data_dependent = true;
}

// ---------------------------------------------------------------- pooling

// grad_output and self of one rank (3 or 4), indices (when given) int64 of grad_output's shape.
void check_pool_backward(const char* op, const Tensor& gy, const Tensor& self, const Tensor* indices) {
  AXLE_CHECK(self.dim() == 3 || self.dim() == 4, ShapeError, op, ": expected a 3-d or 4-d self, got ",
             str(self.sizes()));
  AXLE_CHECK(gy.dim() == self.dim(), ShapeError, op, ": expected grad_output of ", self.dim(), " dims, got ",
             str(gy.sizes()));
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
  check_pool_backward(c.op, gy, self, nullptr);
  c.outputs = {{self.sizes(), gy.dtype()}};
}

// max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices)
Stack max_pool2d_backward_composite(const Stack& a) {
  check_pool_backward("max_pool2d_with_indices_backward", a[0].tensor(), a[1].tensor(), &a[7].tensor());
  return {scatter_to_indices(a[0].tensor(), a[1].tensor(), a[7].tensor(), 2)};
}

// adaptive_max_pool2d_backward(grad_output, self, indices)
Stack adaptive_max_pool2d_backward_composite(const Stack& a) {
  check_pool_backward("adaptive_max_pool2d_backward", a[0].tensor(), a[1].tensor(), &a[2].tensor());
  return {scatter_to_indices(a[0].tensor(), a[1].tensor(), a[2].tensor(), 2)};
}

// avg_pool2d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode,
// count_include_pad, divisor_override): each output's gradient divided by its
// window's divisor (torch's rule) and spread over the window: a transposed
// convolution with a ones kernel over the padded input, cut to the input.
Stack avg_pool2d_backward_composite(const Stack& a) {
  const Tensor& gy = a[0].tensor();
  const Tensor& self = a[1].tensor();
  check_pool_backward("avg_pool2d_backward", gy, self, nullptr);
  const IntList& k = a[2].int_list();
  AXLE_CHECK(!k.empty(), ValueError, "avg_pool2d_backward: kernel_size must not be empty");
  const int64_t kh = k[0], kw = one_or(k, 1, kh);
  const int64_t sh = one_or(a[3].int_list(), 0, kh), sw = one_or(a[3].int_list(), 1, kw);
  const int64_t ph = one_or(a[4].int_list(), 0, 0), pw = one_or(a[4].int_list(), 1, 0);
  check_avg_pool_window("avg_pool2d_backward", {kh, kw}, {sh, sw}, {ph, pw});
  const bool include_pad = a[6].to_bool();
  const int64_t nd = self.dim(), h = self.size(nd - 2), w = self.size(nd - 1);
  const int64_t oh = gy.size(nd - 2), ow = gy.size(nd - 1);
  if (gy.numel() == 0) return {zeros(self.sizes(), like(gy))};
  Tensor divisor = make_empty({oh, ow}, kFloat64, Device("cpu"));
  double* dp = divisor.data_ptr<double>();
  for (int64_t i = 0; i < oh; ++i)
    for (int64_t j = 0; j < ow; ++j) {
      const plugin::PoolWindow hw = plugin::avg_pool_window(i, sh, ph, kh, h);
      const plugin::PoolWindow ww = plugin::avg_pool_window(j, sw, pw, kw, w);
      dp[i * ow + j] =
          static_cast<double>(!a[7].is_none() ? a[7].to_int() : plugin::avg_pool_divisor(hw, ww, include_pad));
    }
  const Tensor scaled = gy / divisor.to(gy.device(), gy.dtype());
  const Tensor planes = reshape(scaled.contiguous(), {-1, 1, oh, ow});
  const Tensor spread =
      convolution(planes, ones({1, 1, kh, kw}, like(gy)), std::nullopt, {sh, sw}, {0, 0}, {1, 1}, true, {0, 0}, 1);
  // spread covers padded rows [0, (oh - 1) * sh + kh): keep [ph, ph + h), zeros past its end.
  const int64_t lh = spread.size(2), lw = spread.size(3);
  const Tensor cut =
      call_op("pad", {spread, IntList{-pw, pw + w - lw, -ph, ph + h - lh}, std::string("constant"), Value()})[0]
          .tensor();
  return {reshape(cut.contiguous(), self.sizes())};
}

// _adaptive_avg_pool2d_backward(grad_output, self)
Stack adaptive_avg_pool2d_backward_composite(const Stack& a) {
  const Tensor& gy = a[0].tensor();
  const Tensor& self = a[1].tensor();
  check_pool_backward("_adaptive_avg_pool2d_backward", gy, self, nullptr);
  const int64_t nd = self.dim();
  const Tensor ah = adaptive_matrix(gy.size(nd - 2), self.size(nd - 2), gy);
  const Tensor aw = adaptive_matrix(gy.size(nd - 1), self.size(nd - 1), gy);
  return {matmul(matmul(t(ah), gy), aw)};
}

}  // namespace

Tensor scatter_to_indices(const Tensor& gy, const Tensor& self, const Tensor& indices, int64_t spatial) {
  IntList flat(self.sizes().begin(), self.sizes().end() - spatial);
  IntList gflat = flat;
  int64_t in = 1, out = 1;
  for (int64_t d = self.dim() - spatial; d < self.dim(); ++d) in *= self.size(d), out *= gy.size(d);
  flat.push_back(in);
  gflat.push_back(out);
  const Tensor acc = zeros(flat, TensorOptions().dtype(gy.dtype()).device(gy.device()));
  return reshape(scatter_add(acc, -1, reshape(indices.contiguous(), gflat), reshape(gy.contiguous(), gflat)),
                 self.sizes());
}

void check_avg_pool_window(const char* op, const IntList& k, const IntList& s, const IntList& p) {
  for (size_t i = 0; i < k.size(); ++i) {
    AXLE_CHECK(k[i] > 0 && s[i] > 0, ValueError, op, ": kernel size and stride should be greater than zero, but got ",
               "kernel_size ", str(k), " and stride ", str(s));
    AXLE_CHECK(p[i] >= 0 && p[i] <= k[i] / 2, ValueError, op,
               ": pad should be at least zero and at most half of kernel size, but got padding ", str(p),
               " and kernel_size ", str(k));
  }
}

int64_t one_or(const IntList& l, size_t i, int64_t fallback) {
  if (l.empty()) return fallback;
  return l.size() == 1 ? l[0] : l[i];
}

Tensor adaptive_matrix(int64_t out, int64_t in, const Tensor& like_t) {
  Tensor m = zeros({out, in}, TensorOptions().dtype(kFloat64));
  double* p = m.data_ptr<double>();
  for (int64_t o = 0; o < out; ++o) {
    const int64_t s = (o * in) / out, e = ((o + 1) * in + out - 1) / out;
    for (int64_t i = s; i < e; ++i) p[o * in + i] = 1.0 / static_cast<double>(e - s);
  }
  return m.to(like_t.device(), like_t.dtype());
}

std::vector<OpDecl> conv_pool_backward_ops() {
  return {
      {.schema = "convolution_backward(Tensor grad_output, Tensor input, Tensor weight, int[]? bias_sizes, int[] "
                 "stride, int[] padding, int[] dilation, bool transposed, int[] output_padding, int groups, int[3] "
                 "output_mask) -> (Tensor, Tensor, Tensor)",
       .shape = &convolution_backward_shape,
       .composite = &convolution_backward_composite,
       .doc = "convolution's gradients (input, weight, bias) where output_mask (0/1 each; torch's bool[3]) asks for "
              "them, else undefined; composite: convolutions.",
       .derivative = {.decomposes = true}},
      {.schema = "max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] "
                 "stride, int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices) -> Tensor",
       .shape = &like_self_shape,
       .composite = &max_pool2d_backward_composite,
       .doc = "max_pool2d's input gradient: grad_output added at indices (a scatter_add over H*W).",
       .derivative = {.decomposes = true}},
      {.schema = "avg_pool2d_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, int[2] "
                 "padding, bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor",
       .shape = &like_self_shape,
       .composite = &avg_pool2d_backward_composite,
       .doc = "avg_pool2d's input gradient (a transposed convolution with a ones kernel).",
       .derivative = {.decomposes = true}},
      {.schema = "_adaptive_avg_pool2d_backward(Tensor grad_output, Tensor self) -> Tensor",
       .shape = &like_self_shape,
       .composite = &adaptive_avg_pool2d_backward_composite,
       .doc = "_adaptive_avg_pool2d's input gradient (window-averaging matrices on both sides).",
       .derivative = {.decomposes = true}},
      {.schema = "adaptive_max_pool2d_backward(Tensor grad_output, Tensor self, Tensor indices) -> Tensor",
       .shape = &like_self_shape,
       .composite = &adaptive_max_pool2d_backward_composite,
       .doc = "adaptive_max_pool2d's input gradient: grad_output added at indices.",
       .derivative = {.decomposes = true}},
  };
}

}  // namespace axle::shape
