// Convolution and 2-d pooling with torch 1.13's checks and messages.
// convolution.out is the one convolution kernel op (1-3 spatial dims, plain and
// transposed); convolution allocates its output (channels_last when the input or
// weight is, as torch) and calls it; conv1d / conv2d (int[] and 'same'/'valid'
// padding, unbatched inputs) and conv_transpose2d are composites over it.
// max_pool2d_with_indices, avg_pool2d, _adaptive_avg_pool2d and
// adaptive_max_pool2d are kernel ops; max_pool2d and adaptive_avg_pool2d are
// composites over them (adaptive_avg_pool2d to [1, 1] is a mean, as torch).
#include "../derivatives/derivatives.h"
#include "conv_pool_util.h"
#include "shape_util.h"

#include <axle/ops.h>

#include <string>

namespace axle::shape {

// conv1d / conv2d / conv_transpose2d / conv_transpose3d accept one unbatched input (no batch dim), as torch.
Tensor batchify(const Tensor& input, int64_t spatial, const char* name, bool& batched) {
  AXLE_CHECK(input.dim() == spatial + 1 || input.dim() == spatial + 2, ShapeError, "Expected ", spatial + 1,
             "D (unbatched) or ", spatial + 2, "D (batched) input to ", name,
             ", but got input of size: ", str(input.sizes()));
  batched = input.dim() == spatial + 2;
  return batched ? input : input.unsqueeze(0);
}

// torch's pooling_output_shape (div rounding toward -inf, ceil mode's last window
// must start inside the input or the left padding).
int64_t pool_out(const char* op, int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil) {
  AXLE_CHECK(stride != 0, ValueError, op, ": stride should not be zero");
  AXLE_CHECK(pad >= 0, ValueError, op, ": pad must be non-negative, but got pad: ", pad);
  AXLE_CHECK(pad <= k / 2, ValueError, op, ": pad should be at most half of kernel size, but got pad=", pad,
             " and kernel_size=", k);
  const int64_t num = in + 2 * pad - dil * (k - 1) - 1 + (ceil ? stride - 1 : 0);
  int64_t q = num / stride;
  if ((num % stride != 0) && ((num < 0) != (stride < 0))) --q;
  int64_t out = q + 1;
  if (ceil && (out - 1) * stride >= in + pad) --out;
  return out;
}

namespace {

std::string list_str(const IntList& l, const char* sep) {
  std::string s;
  for (size_t i = 0; i < l.size(); ++i) s += (i ? sep : "") + std::to_string(l[i]);
  return s;
}

// torch's is_channels_last_strides_2d (core's suggest_memory_format).
bool is_channels_last(const Tensor& t) { return suggest_memory_format(t) == MemoryFormat::ChannelsLast; }

// An uninitialized tensor of NCHW `sizes` laid out as NHWC (or contiguous).
Tensor empty_in_format(const IntList& sizes, DType dtype, const Device& device, bool channels_last) {
  return make_empty(sizes, dtype, device, channels_last ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous);
}

// ---------------------------------------------------------------- convolution

// torch's expand_param_if_needed: one value for every spatial dim, or exactly `dim` values.
IntList expand_param(const char* op, const IntList& p, const char* name, int64_t dim) {
  if (p.size() == 1) return IntList(static_cast<size_t>(dim), p[0]);
  AXLE_CHECK(static_cast<int64_t>(p.size()) == dim, ValueError, op, ": expected ", name,
             " to be a single integer value or a list of ", dim,
             " values to match the convolution dimensions, but got ", name, "=", str(p));
  return p;
}

// Validates convolution's arguments (input, weight, bias, stride, padding, dilation,
// transposed, output_padding, groups) in torch's order, normalizes the int lists
// in `args` to one value per spatial dim, and returns the output sizes.
IntList check_convolution(const char* op, Stack& args) {
  const Tensor& input = args[0].tensor();
  const Tensor& weight = args[1].tensor();
  const bool has_bias = !args[2].is_none() && args[2].tensor().defined();
  const bool transposed = args[6].to_bool();
  const int64_t groups = args[8].to_int();
  const int64_t k = weight.dim(), dim = k - 2;
  AXLE_CHECK(input.dtype() == weight.dtype(), DTypeError, op, ": Input type (", torch_type_name(input.dtype()),
             ") and weight type (", torch_type_name(weight.dtype()), ") should be the same");
  AXLE_CHECK(!has_bias || args[2].tensor().dtype() == input.dtype(), DTypeError, op, ": Input type (",
             torch_type_name(input.dtype()), ") and bias type (", torch_type_name(args[2].tensor().dtype()),
             ") should be the same");
  // torch's CPU kernel names, by spatial rank (3-d: its own kernels)
  const char* kernel = transposed ? (dim == 3 ? "slow_conv_transpose3d_out_cpu" : "slow_conv_transpose2d_out_cpu")
                                  : (dim == 3 ? "compute_columns3d" : "slow_conv2d_cpu");
  AXLE_CHECK(input.dtype() != kBool || input.numel() == 0, DTypeError, op, ": \"", kernel,
             "\" not implemented for 'Bool'");
  AXLE_CHECK(dim > 0, ShapeError, op, ": weight should have at least three dimensions");
  AXLE_CHECK(dim <= 3, NotImplementedError, op, ": only 1, 2 and 3 spatial dimensions are supported, got a ", k,
             "-D weight");
  AXLE_CHECK(groups > 0, ValueError, op, ": non-positive groups is not supported");
  const IntList stride = expand_param(op, args[3].int_list(), "stride", dim);
  const IntList padding = expand_param(op, args[4].int_list(), "padding", dim);
  const IntList dilation = expand_param(op, args[5].int_list(), "dilation", dim);
  const IntList output_padding = expand_param(op, args[7].int_list(), "output_padding", dim);
  for (int64_t i = 0; i < dim; ++i) {
    AXLE_CHECK(padding[i] >= 0, ValueError, op, ": negative padding is not supported");
    AXLE_CHECK(output_padding[i] >= 0, ValueError, op, ": negative output_padding is not supported");
    AXLE_CHECK(stride[i] > 0, ValueError, op, ": non-positive stride is not supported");
    AXLE_CHECK(dilation[i] > 0, ValueError, op, ": non-positive dilation is not supported");
  }
  const IntList& ws = weight.sizes();
  AXLE_CHECK(input.dim() == k, ShapeError, op, ": Expected ", k, "-dimensional input for ", k, "-dimensional weight ",
             str(ws), ", but got ", input.dim(), "-dimensional input of size ", str(input.sizes()), " instead");
  AXLE_CHECK(ws[0] >= groups, ShapeError, op, ": Given groups=", groups, ", expected weight to be at least ", groups,
             " at dimension 0, but got weight of size ", str(ws), " instead");
  AXLE_CHECK(ws[0] % groups == 0, ShapeError, op, ": Given groups=", groups, ", expected weight to be divisible by ",
             groups, " at dimension 0, but got weight of size ", str(ws), " instead");
  for (int64_t i = 0; i < dim; ++i)
    AXLE_CHECK(ws[2 + i] > 0, ShapeError, op, ": expected a kernel size greater than zero, but got weight of size ",
               str(ws));
  const int64_t n = input.sizes()[0];
  IntList out{n};
  if (!transposed) {
    AXLE_CHECK(input.sizes()[1] == ws[1] * groups, ShapeError, op, ": Given groups=", groups, ", weight of size ",
               str(ws), ", expected input", str(input.sizes()), " to have ", ws[1] * groups, " channels, but got ",
               input.sizes()[1], " channels instead");
    AXLE_CHECK(!has_bias || (args[2].tensor().dim() == 1 && args[2].tensor().sizes()[0] == ws[0]), ShapeError, op,
               ": Given weight of size ", str(ws), ", expected bias to be 1-dimensional with ", ws[0],
               " elements, but got bias of size ", str(args[2].tensor().sizes()), " instead");
    IntList padded, kernel;
    bool fits = true;
    for (int64_t i = 0; i < dim; ++i) {
      padded.push_back(input.sizes()[2 + i] + 2 * padding[i]);
      kernel.push_back(dilation[i] * (ws[2 + i] - 1) + 1);
      fits = fits && padded.back() >= kernel.back();
    }
    AXLE_CHECK(fits, ShapeError, op, ": Calculated padded input size per channel: (", list_str(padded, " x "),
               "). Kernel size: (", list_str(kernel, " x "), "). Kernel size can't be greater than actual input size");
    out.push_back(ws[0]);
    for (int64_t i = 0; i < dim; ++i) out.push_back((padded[i] - kernel[i]) / stride[i] + 1);
  } else {
    AXLE_CHECK(input.sizes()[1] == ws[0], ShapeError, op, ": Given transposed=1, weight of size ", str(ws),
               ", expected input", str(input.sizes()), " to have ", ws[0], " channels, but got ", input.sizes()[1],
               " channels instead");
    AXLE_CHECK(!has_bias || (args[2].tensor().dim() == 1 && args[2].tensor().sizes()[0] == ws[1] * groups), ShapeError,
               op, ": Given transposed=1, weight of size ", str(ws), ", expected bias to be 1-dimensional with ",
               ws[1] * groups, " elements, but got bias of size ", str(args[2].tensor().sizes()), " instead");
    bool small_pad = true;
    for (int64_t i = 0; i < dim; ++i)
      small_pad = small_pad && (output_padding[i] < stride[i] || output_padding[i] < dilation[i]);
    AXLE_CHECK(small_pad, ValueError, op,
               ": output padding must be smaller than either stride or dilation, but got output_padding=",
               str(output_padding), " stride=", str(stride), " dilation=", str(dilation));
    IntList in_spatial, out_spatial;
    bool positive = true;
    for (int64_t i = 0; i < dim; ++i) {
      in_spatial.push_back(input.sizes()[2 + i]);
      out_spatial.push_back((input.sizes()[2 + i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (ws[2 + i] - 1) +
                            output_padding[i] + 1);
      positive = positive && out_spatial.back() >= 1;
    }
    AXLE_CHECK(positive, ShapeError, op, ": Given input size per channel: (", list_str(in_spatial, " x "),
               "). Calculated output size per channel: (", list_str(out_spatial, " x "), "). Output size is too small");
    out.push_back(ws[1] * groups);
    out.insert(out.end(), out_spatial.begin(), out_spatial.end());
  }
  args[3] = stride;
  args[4] = padding;
  args[5] = dilation;
  args[7] = output_padding;
  checked_numel(out);
  return out;
}

void convolution_out_shape(ShapeContext& c) {
  const IntList sizes = check_convolution(c.op, c.args);
  const DType dtype = c.arg(0).tensor().dtype();
  const Tensor& out = c.arg(9).tensor();
  AXLE_CHECK(out.sizes() == sizes, ShapeError, c.op, ": expected out of shape ", str(sizes), ", but got ",
             str(out.sizes()), " (axle does not resize out tensors)");
  AXLE_CHECK(out.dtype() == dtype, DTypeError, c.op, ": expected out of dtype ", dtype_name(dtype), ", but got ",
             dtype_name(out.dtype()));
  c.outputs = {{sizes, dtype, 9}};
}

Stack convolution_composite(const Stack& a) {
  Stack args = a;
  const IntList sizes = check_convolution("convolution", args);
  const Tensor& input = args[0].tensor();
  const bool cl = !args[6].to_bool() && (is_channels_last(input) || is_channels_last(args[1].tensor()));
  args.push_back(empty_in_format(sizes, input.dtype(), input.device(), cl));
  return call_op("convolution.out", std::move(args));
}

Tensor run_convolution(const Tensor& input, const Stack& a, const Value& padding, bool transposed,
                       const Value& output_padding, const Value& dilation, const Value& groups) {
  return call_op("convolution", {input, a[1], a[2], a[3], padding, dilation, transposed, output_padding, groups})[0]
      .tensor();
}

template <int Spatial>
Stack conv_composite(const Stack& a) {
  bool batched = false;
  const Tensor input = batchify(a[0].tensor(), Spatial, Spatial == 1 ? "conv1d" : "conv2d", batched);
  const Tensor out = run_convolution(input, a, a[4], false, IntList{0}, a[5], a[6]);
  return {batched ? out : out.squeeze(0)};
}

// padding='same': total padding dilation * (kernel - 1) per dim, split left = total / 2;
// an odd total pads the input's right side by one more (torch's _convolution_same).
Tensor conv_same(const Tensor& input, const Stack& a) {
  const Tensor& weight = a[1].tensor();
  const int64_t k = weight.dim();
  AXLE_CHECK(k > 2, ShapeError, "convolution: weight should have at least three dimensions");
  const int64_t dim = k - 2;
  AXLE_CHECK(k == input.dim(), ShapeError, "convolution: Expected ", k, "-dimensional input for ", k,
             "-dimensional weight", str(weight.sizes()), ", but got ", input.dim(), "-dimensional input of size ",
             str(input.sizes()), " instead");
  const IntList& stride = a[3].int_list();
  const IntList& dil = a[5].int_list();
  AXLE_CHECK(static_cast<int64_t>(stride.size()) == dim || stride.size() == 1, ValueError,
             "convolution: stride cannot broadcast to ", dim, " dimensions");
  AXLE_CHECK(static_cast<int64_t>(dil.size()) == dim || dil.size() == 1, ValueError,
             "convolution: dilation cannot broadcast to ", dim, " dimensions");
  for (int64_t s : stride)
    AXLE_CHECK(s == 1, ValueError, "convolution: padding='same' is not supported for strided convolutions");
  IntList left, padded_sizes = input.sizes();
  bool symmetric = true;
  for (int64_t i = 0; i < dim; ++i) {
    const int64_t d = dil.size() == 1 ? dil[0] : dil[i];
    const int64_t total = d * (weight.sizes()[2 + i] - 1);
    left.push_back(total / 2);
    padded_sizes[2 + i] += total - 2 * (total / 2);
    symmetric = symmetric && total % 2 == 0;
  }
  Tensor padded = input;
  if (!symmetric && input.requires_grad()) {
    // Through the differentiable pad (the copy below into a view would not record).
    IntList extra;
    for (int64_t i = dim - 1; i >= 0; --i) extra.insert(extra.end(), {0, padded_sizes[2 + i] - input.sizes()[2 + i]});
    padded = call_op("pad", {input, extra, std::string("constant"), Value()})[0].tensor();
  } else if (!symmetric) {
    padded = empty_in_format(padded_sizes, input.dtype(), input.device(), is_channels_last(input));
    padded.zero_();
    Tensor inner = padded;
    for (int64_t i = 0; i < dim; ++i) inner = inner.slice(2 + i, 0, input.sizes()[2 + i]);
    inner.copy_(input);
  }
  return run_convolution(padded, a, left, false, IntList{0}, a[5], a[6]);
}

template <int Spatial>
Stack conv_padding_composite(const Stack& a) {
  bool batched = false;
  const Tensor input = batchify(a[0].tensor(), Spatial, Spatial == 1 ? "conv1d" : "conv2d", batched);
  const std::string& mode = a[4].str();
  Tensor out;
  if (mode == "valid")
    out = run_convolution(input, a, IntList{0}, false, IntList{0}, a[5], a[6]);
  else if (mode == "same")
    out = conv_same(input, a);
  else
    throw ValueError(detail::concat("convolution: Invalid padding string: '", mode, "'"));
  return {batched ? out : out.squeeze(0)};
}

// conv_transpose2d.input(input, weight, bias, stride, padding, output_padding, groups, dilation)
Stack conv_transpose2d_composite(const Stack& a) {
  bool batched = false;
  const Tensor input = batchify(a[0].tensor(), 2, "conv_transpose2d", batched);
  const Tensor out = run_convolution(input, a, a[4], true, a[5], a[7], a[6]);
  return {batched ? out : out.squeeze(0)};
}

// ---------------------------------------------------------------- pooling

struct Pool2d {
  int64_t kh, kw, sh, sw, ph, pw, dh = 1, dw = 1;
};

// Reads kernel_size, stride ([] = kernel_size), padding (and dilation) as torch's
// max_pool2d / avg_pool2d do, writing them back as two values each.
Pool2d read_pool_args(ShapeContext& c, const char* name, bool has_dilation) {
  const IntList& k = c.args[1].int_list();
  const IntList& s = c.args[2].int_list();
  const IntList& p = c.args[3].int_list();
  AXLE_CHECK(k.size() == 1 || k.size() == 2, ValueError, c.op, ": ", name,
             ": kernel_size must either be a single int, or a tuple of two ints");
  Pool2d r{};
  r.kh = k[0];
  r.kw = k.size() == 1 ? r.kh : k[1];
  AXLE_CHECK(s.size() <= 2, ValueError, c.op, ": ", name,
             ": stride must either be omitted, a single int, or a tuple of two ints");
  r.sh = s.empty() ? r.kh : s[0];
  r.sw = s.empty() ? r.kw : s.size() == 1 ? r.sh : s[1];
  AXLE_CHECK(p.size() == 1 || p.size() == 2, ValueError, c.op, ": ", name,
             ": padding must either be a single int, or a tuple of two ints");
  r.ph = p[0];
  r.pw = p.size() == 1 ? r.ph : p[1];
  if (has_dilation) {
    const IntList& d = c.args[4].int_list();
    AXLE_CHECK(d.size() == 1 || d.size() == 2, ValueError, c.op, ": ", name,
               ": dilation must be either a single int, or a tuple of two ints");
    r.dh = d[0];
    r.dw = d.size() == 1 ? r.dh : d[1];
    c.args[4] = IntList{r.dh, r.dw};
  }
  c.args[1] = IntList{r.kh, r.kw};
  c.args[2] = IntList{r.sh, r.sw};
  c.args[3] = IntList{r.ph, r.pw};
  return r;
}

// torch's pool2d_shape_check; returns the output sizes.
IntList pool2d_check(const char* op, const Tensor& input, const Pool2d& p, int64_t oh, int64_t ow) {
  AXLE_CHECK(p.kw > 0 && p.kh > 0, ValueError, op, ": kernel size should be greater than zero, but got kH: ", p.kh,
             " kW: ", p.kw);
  AXLE_CHECK(p.sw > 0 && p.sh > 0, ValueError, op, ": stride should be greater than zero, but got dH: ", p.sh,
             " dW: ", p.sw);
  AXLE_CHECK(p.dh > 0 && p.dw > 0, ValueError, op, ": dilation should be greater than zero, but got dilationH: ", p.dh,
             " dilationW: ", p.dw);
  const int64_t nd = input.dim();
  const IntList& s = input.sizes();
  const bool valid = nd >= 3 && s[1] != 0 && s[2] != 0;
  AXLE_CHECK((nd == 3 && s[0] != 0 && valid) || (nd == 4 && valid && s[3] != 0), ShapeError, op,
             ": Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:", str(s));
  AXLE_CHECK(p.kw / 2 >= p.pw && p.kh / 2 >= p.ph, ValueError, op,
             ": pad should be smaller than or equal to half of kernel size, but got padW = ", p.pw, ", padH = ", p.ph,
             ", kW = ", p.kw, ", kH = ", p.kh);
  const int64_t planes = s[nd - 3];
  AXLE_CHECK(ow >= 1 && oh >= 1, ShapeError, op, ": Given input size: (", planes, "x", s[nd - 2], "x", s[nd - 1],
             "). Calculated output size: (", planes, "x", oh, "x", ow, "). Output size is too small");
  IntList out(s.begin(), s.end() - 2);
  out.push_back(oh);
  out.push_back(ow);
  return out;
}

void floating_pool_dtype(const char* op, const char* kernel, DType d) {
  AXLE_CHECK(is_floating_point(d), DTypeError, op, ": \"", kernel, "\" not implemented for '", torch_type_name(d), "'");
}

void max_pool2d_with_indices_shape(ShapeContext& c) {
  const Tensor& input = c.arg(0).tensor();
  const Pool2d p = read_pool_args(c, "max_pool2d", true);
  AXLE_CHECK(input.dim() == 3 || input.dim() == 4, ShapeError, c.op,
             ": non-empty 3D or 4D (batch mode) tensor expected for input");
  const bool ceil = c.args[5].to_bool();
  const int64_t oh = pool_out(c.op, input.sizes()[input.dim() - 2], p.kh, p.ph, p.sh, p.dh, ceil);
  const int64_t ow = pool_out(c.op, input.sizes()[input.dim() - 1], p.kw, p.pw, p.sw, p.dw, ceil);
  const IntList out = pool2d_check(c.op, input, p, oh, ow);
  floating_pool_dtype(c.op, "max_pool2d", input.dtype());
  c.outputs = {{out, input.dtype()}, {out, kInt64}};
}

// max_pool2d's own shape (the values of max_pool2d_with_indices), so a plugin can
// serve it without computing indices; the composite serves every other device.
void max_pool2d_shape(ShapeContext& c) {
  max_pool2d_with_indices_shape(c);
  c.outputs.resize(1);
}

Stack max_pool2d_composite(const Stack& a) {
  Stack r = call_op("max_pool2d_with_indices", a);
  return {r[0]};
}

void avg_pool2d_shape(ShapeContext& c) {
  const Tensor& input = c.arg(0).tensor();
  const Pool2d p = read_pool_args(c, "avg_pool2d", false);
  AXLE_CHECK(c.args[6].is_none() || c.args[6].to_int() != 0, ValueError, c.op, ": divisor must be not zero");
  const int64_t nd = input.dim();
  (void)wrap_dim(-3, nd, c.op);  // torch reads input.size(-3) first
  const bool ceil = c.args[4].to_bool();
  const int64_t oh = pool_out(c.op, input.sizes()[nd - 2], p.kh, p.ph, p.sh, 1, ceil);
  const int64_t ow = pool_out(c.op, input.sizes()[nd - 1], p.kw, p.pw, p.sw, 1, ceil);
  const IntList out = pool2d_check(c.op, input, p, oh, ow);
  AXLE_CHECK(is_floating_point(input.dtype()) || input.dtype() == kInt64, DTypeError, c.op,
             ": \"avg_pool2d\" not implemented for '", torch_type_name(input.dtype()), "'");
  c.outputs = {{out, input.dtype()}};
}

void check_output_size(const char* op, const Value& v, const char* name) {
  const IntList& o = v.int_list();
  AXLE_CHECK(o.size() == 2, ValueError, op, ": ", name, ": output_size must be 2");
  AXLE_CHECK(o[0] >= 0 && o[1] >= 0, ValueError, op, ": ", name,
             ": elements of output_size must be greater than or equal to 0 but received {", o[0], ", ", o[1], "}");
}

void adaptive_avg_pool2d_shape(ShapeContext& c) {
  const Tensor& input = c.arg(0).tensor();
  check_output_size(c.op, c.args[1], "adaptive_avg_pool2d");
  const int64_t nd = input.dim();
  AXLE_CHECK(nd == 3 || nd == 4, ShapeError, c.op, ": adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got ",
             str(input.sizes()));
  for (int64_t i : {nd - 2, nd - 1})
    AXLE_CHECK(input.sizes()[i] > 0, ShapeError, c.op,
               ": adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input "
               "has sizes ",
               str(input.sizes()), " with dimension ", i, " being empty");
  IntList out(input.sizes().begin(), input.sizes().end() - 2);
  out.insert(out.end(), c.args[1].int_list().begin(), c.args[1].int_list().end());
  if (checked_numel(out) > 0) floating_pool_dtype(c.op, "adaptive_avg_pool2d", input.dtype());
  c.outputs = {{out, input.dtype()}};
}

Stack adaptive_avg_pool2d_composite(const Stack& a) {
  check_output_size("adaptive_avg_pool2d", a[1], "adaptive_avg_pool2d");
  const IntList& o = a[1].int_list();
  if (o[0] == 1 && o[1] == 1) return call_op("mean.dim", {a[0], IntList{-1, -2}, true, Value()});
  return call_op("_adaptive_avg_pool2d", a);
}

void adaptive_max_pool2d_shape(ShapeContext& c) {
  const Tensor& input = c.arg(0).tensor();
  const int64_t nd = input.dim();
  AXLE_CHECK(nd == 3 || nd == 4, ShapeError, c.op,
             ": adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: ", str(input.sizes()));
  for (int64_t i = 1; i < nd; ++i)
    AXLE_CHECK(input.sizes()[i] > 0, ShapeError, c.op,
               ": adaptive_max_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input "
               "has sizes ",
               str(input.sizes()), " with dimension ", i, " being empty");
  const IntList& o = c.args[1].int_list();
  AXLE_CHECK(o.size() == 2, ValueError, c.op, ": adaptive_max_pool2d(): internal error: output_size.size() must be 2");
  IntList out(input.sizes().begin(), input.sizes().end() - 2);
  out.insert(out.end(), o.begin(), o.end());
  for (int64_t s : o)
    AXLE_CHECK(s >= 0, ValueError, c.op, ": Trying to create tensor with negative dimension ", s, ": ", str(out));
  floating_pool_dtype(c.op, "adaptive_max_pool2d", input.dtype());
  c.outputs = {{out, input.dtype()}, {out, kInt64}};
}

}  // namespace

std::vector<OpDecl> conv_pool_ops() {
  return {
      {.schema = "convolution(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, int[] dilation, "
                 "bool transposed, int[] output_padding, int groups) -> Tensor",
       .composite = &convolution_composite,
       .doc = "N-d (1-3 spatial dims) convolution or transposed convolution; channels_last in, channels_last out.",
       .derivative = {.vjp = &derivatives::convolution, .saves = save_arg(0) | save_arg(1)}},
      {.schema = "convolution.out(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, int[] "
                 "dilation, bool transposed, int[] output_padding, int groups, *, Tensor(a!) out) -> Tensor(a!)",
       .shape = &convolution_out_shape,
       .doc = "convolution into out (which must have the result's shape and dtype).",
       .derivative = {.none = "out= form: autograd refuses out= arguments that require grad"}},
      {.schema = "conv1d(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, int[1] padding=0, int[1] "
                 "dilation=1, int groups=1) -> Tensor",
       .composite = &conv_composite<1>,
       .doc = "1-d convolution over (N, C, L) or unbatched (C, L) input.",
       .flags = kNNFunctional,
       .derivative = {.decomposes = true}},
      {.schema = "conv1d.padding(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, str "
                 "padding=\"valid\", int[1] dilation=1, int groups=1) -> Tensor",
       .composite = &conv_padding_composite<1>,
       .doc = "1-d convolution with padding 'valid' or 'same'.",
       .flags = kNNFunctional,
       .derivative = {.decomposes = true}},
      {.schema = "conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, int[2] "
                 "dilation=1, int groups=1) -> Tensor",
       .composite = &conv_composite<2>,
       .doc = "2-d convolution over (N, C, H, W) or unbatched (C, H, W) input.",
       .flags = kNNFunctional,
       .derivative = {.decomposes = true}},
      {.schema = "conv2d.padding(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, str "
                 "padding=\"valid\", int[2] dilation=1, int groups=1) -> Tensor",
       .composite = &conv_padding_composite<2>,
       .doc = "2-d convolution with padding 'valid' or 'same'.",
       .flags = kNNFunctional,
       .derivative = {.decomposes = true}},
      {.schema = "conv_transpose2d.input(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] "
                 "padding=0, int[2] output_padding=0, int groups=1, int[2] dilation=1) -> Tensor",
       .composite = &conv_transpose2d_composite,
       .doc = "2-d transposed convolution (weight [C_in, C_out / groups, kH, kW]).",
       .flags = kNNFunctional,
       .derivative = {.decomposes = true}},
      {.schema = "max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] "
                 "dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)",
       .shape = &max_pool2d_with_indices_shape,
       .doc = "2-d max pooling with the flat H*W index of each maximum.",
       .flags = kNNOnly,
       .derivative = {.vjp = &derivatives::max_pool2d_with_indices, .saves = save_arg(0) | save_output(1)}},
      {.schema = "max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, "
                 "bool ceil_mode=False) -> Tensor",
       .shape = &max_pool2d_shape,
       .composite = &max_pool2d_composite,
       .doc = "2-d max pooling (stride [] means kernel_size).",
       .flags = kNNFunctional,
       .derivative = {.decomposes = true}},
      {.schema = "avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool "
                 "ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor",
       .shape = &avg_pool2d_shape,
       .doc = "2-d average pooling.",
       .flags = kNNOnly,
       .derivative = {.vjp = &derivatives::avg_pool2d, .saves = save_arg(0)}},
      {.schema = "_adaptive_avg_pool2d(Tensor self, int[2] output_size) -> Tensor",
       .shape = &adaptive_avg_pool2d_shape,
       .doc = "Adaptive 2-d average pooling (the kernel behind adaptive_avg_pool2d).",
       .derivative = {.vjp = &derivatives::adaptive_avg_pool2d, .saves = save_arg(0)}},
      {.schema = "adaptive_avg_pool2d(Tensor self, int[2] output_size) -> Tensor",
       .composite = &adaptive_avg_pool2d_composite,
       .doc = "Adaptive 2-d average pooling to output_size.",
       .flags = kNNOnly,
       .derivative = {.decomposes = true}},
      {.schema = "adaptive_max_pool2d(Tensor self, int[2] output_size) -> (Tensor, Tensor)",
       .shape = &adaptive_max_pool2d_shape,
       .doc = "Adaptive 2-d max pooling: values and flat H*W indices.",
       .flags = kNNOnly,
       .derivative = {.vjp = &derivatives::adaptive_max_pool2d, .saves = save_arg(0) | save_output(1)}},
  };
}

}  // namespace axle::shape
