// NN ops: softmax / log_softmax, batch_norm (inference, or batch statistics
// without running-stat updates), layer_norm, group_norm, rms_norm (torch 2.x),
// dropout (identity unless training; a Bernoulli mask from rand when training), scaled_dot_product_attention
// (torch 2.x, a composite), upsample_nearest2d / upsample_bilinear2d (what
// F.interpolate calls) and pad (constant, reflect, replicate, circular).
// Dtype support follows torch 1.13's CPU kernels (e.g. no float16 norms).
#include "../derivatives/derivatives.h"
#include "shape_util.h"

#include <axle/ops.h>

#include <cmath>
#include <limits>
#include <string>

namespace axle::shape {
namespace {

bool in(DType d, std::initializer_list<DType> set) {
  for (DType s : set)
    if (s == d) return true;
  return false;
}

// torch 1.13's CPU kernels for softmax and the norms: float32, float64, bfloat16.
void check_norm_dtype(const char* op, DType d) {
  AXLE_CHECK(in(d, {kFloat32, kFloat64, kBFloat16}), DTypeError, op, ": not implemented for ", dtype_name(d),
             " (float32, float64 and bfloat16 only)");
}

const Tensor* opt_tensor(const Value& v) { return v.is_none() ? nullptr : &v.tensor(); }

// ------------------------------------------------------------ softmax
void softmax_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  c.args[1] = wrap_dim(c.args[1].to_int(), t.dim(), c.op);
  const DType dt = c.args[2].is_none() ? t.dtype() : c.args[2].dtype();
  if (t.numel() != 0) check_norm_dtype(c.op, dt);  // torch returns empty results of any dtype
  c.outputs = {{t.sizes(), dt}};
}

// ------------------------------------------------------------ batch_norm
// Parameters match the input's dtype; a bfloat16 input also takes float32 ones.
void check_param(ShapeContext& c, int i, const char* name, int64_t features) {
  const Tensor* p = opt_tensor(c.args[i]);
  if (!p) return;
  const DType in_dt = c.arg(0).tensor().dtype();
  AXLE_CHECK(p->numel() == features, ShapeError, c.op, ": ", name, " should contain ", features, " elements not ",
             p->numel());
  AXLE_CHECK(p->dtype() == in_dt || (in_dt == kBFloat16 && p->dtype() == kFloat32), DTypeError, c.op,
             ": mixed dtype (CPU): expect parameter to have scalar type of ", dtype_name(in_dt), ", got ", name, " of ",
             dtype_name(p->dtype()));
}

void batch_norm_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  AXLE_CHECK(t.dim() >= 2, ShapeError, c.op, ": expected an input of at least 2 dims (N, C, ...), got size ",
             str(t.sizes()));
  check_norm_dtype(c.op, t.dtype());
  const int64_t features = t.sizes()[1];
  check_param(c, 1, "weight", features);
  check_param(c, 2, "bias", features);
  check_param(c, 3, "running_mean", features);
  check_param(c, 4, "running_var", features);
  const bool training = c.args[5].to_bool();
  const bool has_mean = !c.args[3].is_none(), has_var = !c.args[4].is_none();
  if (!training) {
    AXLE_CHECK(has_mean, ValueError, c.op, ": running_mean must be defined in evaluation mode");
    AXLE_CHECK(has_var, ValueError, c.op, ": running_var must be defined in evaluation mode");
  } else {
    AXLE_CHECK(!has_mean && !has_var, NotImplementedError, c.op,
               ": training=True with running_mean/running_var (updating the running statistics) is not implemented; "
               "pass None for both to normalize with batch statistics, or use training=False");
  }
  c.outputs = {{t.sizes(), t.dtype()}};
}

// _native_batch_norm_legit.no_stats(input, weight, bias, training, momentum,
// eps) -> (out, save_mean, save_invstd): torch 2.x's batch norm over the batch's
// statistics, returned per channel for the backward op and for the running
// statistics nn's modules and F.batch_norm update from them (one pass over the
// input where a kernel computes both). Statistics are of the input's dtype
// (float32 for a bfloat16 input with a float32 weight, as torch's mixed
// kernels). training=False has no statistics to use.
DType batch_stats_dtype(const Tensor& x, const Value& weight) {
  return x.dtype() == kBFloat16 && !weight.is_none() && weight.tensor().dtype() == kFloat32 ? kFloat32 : x.dtype();
}

// Both _native_batch_norm_legit forms' checks: an input (N, C, ...) of a norm
// dtype, its parameters (and running statistics, arguments 3 and 4) of C
// elements, and in training a value per channel. Returns C.
int64_t check_batch_norm_legit(ShapeContext& c, bool running, bool training) {
  const Tensor& t = c.arg(0).tensor();
  AXLE_CHECK(t.dim() >= 2, IndexError, c.op,
             ": Dimension out of range: expected an input of at least 2 dims (N, C, ...), got size ", str(t.sizes()));
  check_norm_dtype(c.op, t.dtype());
  const int64_t features = t.sizes()[1];
  check_param(c, 1, "weight", features);
  check_param(c, 2, "bias", features);
  if (running) {
    check_param(c, 3, "running_mean", features);
    check_param(c, 4, "running_var", features);
  }
  AXLE_CHECK(!training || features == 0 || t.numel() / features > 0, ValueError, c.op,
             ": expected at least one value per channel, got input size ", str(t.sizes()));
  return features;
}

void batch_norm_no_stats_shape(ShapeContext& c) {
  const int64_t features = check_batch_norm_legit(c, false, c.args[3].to_bool());
  AXLE_CHECK(c.args[3].to_bool(), ValueError, c.op,
             ": training=False needs running statistics (running_mean and running_var); this overload has none");
  const Tensor& t = c.arg(0).tensor();
  const DType sd = batch_stats_dtype(t, c.args[1]);
  c.outputs = {{t.sizes(), t.dtype()}, {IntList{features}, sd}, {IntList{features}, sd}};
}

Stack batch_norm_no_stats_composite(const Stack& args) {
  // The shape function's checks first (a composite runs without it).
  Stack a = args;
  ShapeContext checks{"_native_batch_norm_legit.no_stats", a, a[0].tensor().device(), {}};
  batch_norm_no_stats_shape(checks);
  const Tensor& x = a[0].tensor();
  const double eps = a[5].to_double();
  const int64_t nd = x.dim();
  IntList dims{0}, bshape(static_cast<size_t>(nd), 1);
  for (int64_t d = 2; d < nd; ++d) dims.push_back(d);
  bshape[1] = x.size(1);
  const DType sd = batch_stats_dtype(x, a[1]);
  // bfloat16 is computed in float32 and rounded once, as torch's kernels.
  const Tensor xs = x.dtype() == kBFloat16 ? x.to(kFloat32) : x;
  const Tensor mu = mean(xs, dims, true), centered = xs - mu;
  const Tensor invstd =
      derivatives::call(AXLE_OP("rsqrt"), mean(centered * centered, dims, true) + scalar_to_tensor(Scalar(eps)));
  Tensor y = centered * invstd;
  if (!a[1].is_none()) y = y * reshape(a[1].tensor(), bshape);
  if (!a[2].is_none()) y = y + reshape(a[2].tensor(), bshape);
  if (y.dtype() != x.dtype()) y = y.to(x.dtype());
  return {y, reshape(mu, {-1}).to(sd), reshape(invstd, {-1}).to(sd)};
}

// _native_batch_norm_legit(input, weight, bias, running_mean!, running_var!,
// training, momentum, eps) -> (out, save_mean, save_invstd): torch 2.x's batch
// norm that also updates the running statistics in place (training) or
// normalizes with them (evaluation: empty statistics returned), as nn's
// modules run it. The update is torch's: (1 - momentum) * running + momentum *
// the batch's mean / unbiased variance.
void batch_norm_legit_shape(ShapeContext& c) {
  const bool training = c.args[5].to_bool();
  const int64_t features = check_batch_norm_legit(c, true, training);
  const Tensor& t = c.arg(0).tensor();
  const DType sd = batch_stats_dtype(t, c.args[1]);
  const IntList stats{training ? features : 0};
  c.outputs = {{t.sizes(), t.dtype()}, {stats, sd}, {stats, sd}};
}

Stack batch_norm_legit_composite(const Stack& args) {
  Stack a = args;
  ShapeContext checks{"_native_batch_norm_legit", a, a[0].tensor().device(), {}};
  batch_norm_legit_shape(checks);
  const Tensor& x = a[0].tensor();
  Tensor running_mean = a[3].tensor(), running_var = a[4].tensor();
  const double momentum = a[6].to_double(), eps = a[7].to_double();
  const DType sd = batch_stats_dtype(x, a[1]);
  if (!a[5].to_bool()) {
    const Tensor y =
        call_op(AXLE_OP("batch_norm"), {x, a[1], a[2], a[3], a[4], false, momentum, eps, false})[0].tensor();
    const Tensor none = empty({0}, TensorOptions().dtype(sd).device(x.device()));
    return {y, none, none};
  }
  Stack r = call_op(AXLE_OP("_native_batch_norm_legit.no_stats"), {x, a[1], a[2], true, momentum, eps});
  // The unbiased variance in float64 from save_invstd (1 / invstd^2 - eps),
  // or from the input when the statistics are bfloat16-rounded.
  const int64_t count = x.size(1) ? x.numel() / x.size(1) : 0;
  Tensor var;
  if (r[2].tensor().dtype() == kBFloat16) {
    IntList dims{0};
    for (int64_t d = 2; d < x.dim(); ++d) dims.push_back(d);
    const Tensor xf = x.to(kFloat64), centered = xf - mean(xf, dims, true);
    var = reshape(mean(centered * centered, dims, false), {-1});
  } else {
    const Tensor inv = r[2].tensor().to(kFloat64);
    var = clamp(reciprocal(inv * inv) - scalar_to_tensor(Scalar(eps)), Scalar(0.0));
  }
  // n / (n - 1); one value per channel gives NaN (0 / 0), as torch's kernel.
  if (count > 0)
    var = var * scalar_to_tensor(
                    Scalar(count == 1 ? std::nan("") : static_cast<double>(count) / static_cast<double>(count - 1)));
  const Tensor keep = scalar_to_tensor(Scalar(1.0 - momentum)), take = scalar_to_tensor(Scalar(momentum));
  running_mean.copy_((running_mean.to(kFloat64) * keep + r[1].tensor().to(kFloat64) * take).to(running_mean.dtype()));
  running_var.copy_((running_var.to(kFloat64) * keep + var * take).to(running_var.dtype()));
  return r;
}

// ------------------------------------------------------------ layer_norm, rms_norm, group_norm
void check_normalized_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  const IntList& ns = c.args[1].int_list();
  AXLE_CHECK(!ns.empty(), ShapeError, c.op,
             ": Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got "
             "normalized_shape = ",
             str(ns));
  bool match = static_cast<int64_t>(ns.size()) <= t.dim();
  for (size_t i = 0; match && i < ns.size(); ++i) match = t.sizes()[t.dim() - ns.size() + i] == ns[i];
  std::string expected = "[*";
  for (int64_t s : ns) expected += ", " + std::to_string(s);
  AXLE_CHECK(match, ShapeError, c.op, ": Given normalized_shape=", str(ns), ", expected input with shape ", expected,
             "], but got input of size", str(t.sizes()));
  for (auto [i, name] : {std::pair{2, "weight"}, std::pair{3, "bias"}}) {
    if (std::string(c.op) == "rms_norm" && i == 3) break;
    const Tensor* p = opt_tensor(c.args[i]);
    if (!p) continue;
    AXLE_CHECK(p->sizes() == ns, ShapeError, c.op, ": Expected ", name,
               " to be of same shape as normalized_shape, but got ", name, " of shape ", str(p->sizes()),
               " and normalized_shape = ", str(ns));
  }
}

void layer_norm_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  check_normalized_shape(c);
  check_norm_dtype(c.op, t.dtype());
  for (int i : {2, 3})
    if (const Tensor* p = opt_tensor(c.args[i]))
      AXLE_CHECK(p->dtype() == t.dtype(), DTypeError, c.op, ": expected scalar type ", dtype_name(t.dtype()),
                 " but found ", dtype_name(p->dtype()));
  c.outputs = {{t.sizes(), t.dtype()}};
}

// torch 2.x F.rms_norm: any floating dtype; eps None -> finfo(input.dtype).eps;
// the result promotes with the weight's dtype.
void rms_norm_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  check_normalized_shape(c);
  AXLE_CHECK(is_floating_point(t.dtype()), DTypeError, c.op, ": expected a floating point input, got ",
             dtype_name(t.dtype()));
  const Tensor* w = opt_tensor(c.args[2]);
  if (c.args[3].is_none()) {
    double eps = std::numeric_limits<float>::epsilon();
    if (t.dtype() == kFloat64) eps = std::numeric_limits<double>::epsilon();
    if (t.dtype() == kFloat16) eps = 0x1p-10;
    if (t.dtype() == kBFloat16) eps = 0x1p-7;
    c.args[3] = eps;
  }
  c.outputs = {{t.sizes(), w ? result_type({&t, w}) : t.dtype()}};
}

void group_norm_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  AXLE_CHECK(t.dim() >= 2, ShapeError, c.op, ": Expected at least 2 dimensions for input tensor but received ",
             t.dim());
  const int64_t groups = c.args[1].to_int(), channels = t.sizes()[1];
  AXLE_CHECK(groups > 0, ValueError, c.op, ": Expected num groups to be greater than 0, got ", groups);
  AXLE_CHECK(channels % groups == 0, ValueError, c.op,
             ": Expected number of channels in input to be divisible by num_groups, but got input of shape ",
             str(t.sizes()), " and num_groups=", groups);
  check_norm_dtype(c.op, t.dtype());
  for (auto [i, name] : {std::pair{2, "weight"}, std::pair{3, "bias"}}) {
    const Tensor* p = opt_tensor(c.args[i]);
    if (!p) continue;
    AXLE_CHECK(p->dim() == 1 && p->numel() == channels, ShapeError, c.op, ": Expected ", name,
               " to be a vector of size equal to the number of channels in input, but got ", name, " of shape ",
               str(p->sizes()), " and input of shape ", str(t.sizes()));
    AXLE_CHECK(p->dtype() == t.dtype(), DTypeError, c.op, ": expected scalar type ", dtype_name(t.dtype()),
               " but found ", dtype_name(p->dtype()));
  }
  c.outputs = {{t.sizes(), t.dtype()}};
}

// ------------------------------------------------------------ dropout (composite)
Stack dropout_composite(const Stack& a) {
  const Tensor& t = a[0].tensor();
  const double p = a[1].to_double();
  const bool train = a[2].to_bool();
  AXLE_CHECK(p >= 0 && p <= 1, ValueError, "dropout: dropout probability has to be between 0 and 1, but got ", p);
  if (p == 0 || !train || t.numel() == 0) return {t};
  if (p == 1) return call_op("mul.Tensor", {t, make_empty({}, t.dtype(), t.device()).fill_(0)});
  AXLE_CHECK(is_floating_point(t.dtype()), DTypeError, "dropout: training needs a floating input, got ",
             dtype_name(t.dtype()));
  // torch's: a mask of input's dtype keeping each element with probability
  // 1 - p (bernoulli.p on the default generator), divided by 1 - p, times input.
  const Tensor keep = call_op("bernoulli.p", {t, 1.0 - p, Value()})[0].tensor();
  const Tensor scaled = call_op("div.Tensor", {keep, scalar_to_tensor(Scalar(1.0 - p))})[0].tensor();
  return call_op("mul.Tensor", {t, scaled});
}

// ------------------------------------------------------------ scaled_dot_product_attention (composite)
// torch 2.x semantics: softmax(q @ k^T * scale + mask) @ v; a bool mask keeps
// positions where it is True (log(1) = 0, log(0) = -inf), is_causal keeps j <= i.
Stack sdpa_composite(const Stack& a) {
  const char* op = "scaled_dot_product_attention";
  const Tensor& q = a[0].tensor();
  const Tensor& k = a[1].tensor();
  const Tensor& v = a[2].tensor();
  const Tensor* mask = opt_tensor(a[3]);
  const double dropout_p = a[4].to_double();
  const bool causal = a[5].to_bool();
  AXLE_CHECK(q.dim() >= 2 && k.dim() >= 2 && v.dim() >= 2, ShapeError, op,
             ": expected query, key and value of at least 2 dims, got ", str(q.sizes()), ", ", str(k.sizes()), ", ",
             str(v.sizes()));
  AXLE_CHECK(q.dtype() == k.dtype() && q.dtype() == v.dtype(), DTypeError, op,
             ": Expected query, key, and value to have the same dtype, but got query.dtype: ", dtype_name(q.dtype()),
             " key.dtype: ", dtype_name(k.dtype()), " and value.dtype: ", dtype_name(v.dtype()), " instead.");
  AXLE_CHECK(is_floating_point(q.dtype()), DTypeError, op, ": expected floating point query, key and value, got ",
             dtype_name(q.dtype()));
  AXLE_CHECK(q.size(-1) == k.size(-1), ShapeError, op, ": query and key must have the same embedding size, got ",
             str(q.sizes()), " and ", str(k.sizes()));
  AXLE_CHECK(k.size(-2) == v.size(-2), ShapeError, op, ": key and value must have the same sequence length, got ",
             str(k.sizes()), " and ", str(v.sizes()));
  AXLE_CHECK(!(causal && mask), ValueError, op, ": Explicit attn_mask should not be set when is_causal=True");
  if (mask)
    AXLE_CHECK(mask->dtype() == kBool || mask->dtype() == q.dtype(), DTypeError, op,
               ": Expected attn_mask dtype to be bool or to match query dtype, but got attn_mask.dtype: ",
               dtype_name(mask->dtype()), " and  query.dtype: ", dtype_name(q.dtype()), " instead.");
  const double scale = a[6].is_none() ? 1.0 / std::sqrt(static_cast<double>(q.size(-1))) : a[6].to_double();
  const int64_t L = q.size(-2), S = k.size(-2);
  Tensor attn = matmul(q, k.transpose(-2, -1)) * Scalar(scale);
  if (causal) {
    Tensor bias = make_empty({L, S}, kFloat64, Device("cpu"));
    double* p = bias.data_ptr<double>();
    for (int64_t i = 0; i < L; ++i)
      for (int64_t j = 0; j < S; ++j) p[i * S + j] = j <= i ? 0.0 : -std::numeric_limits<double>::infinity();
    attn = attn + bias.to(q.device(), q.dtype());
  } else if (mask) {
    attn = attn + (mask->dtype() == kBool ? call_op("log", {mask->to(q.dtype())})[0].tensor() : *mask);
  }
  if (q.dtype() == kFloat16)
    attn = call_op("softmax.int", {attn, -1, kFloat32})[0].tensor().to(kFloat16);
  else
    attn = call_op("softmax.int", {attn, -1, Value()})[0].tensor();
  if (dropout_p > 0) attn = call_op("dropout", {attn, dropout_p, true})[0].tensor();
  return {matmul(attn, v)};
}

// ------------------------------------------------------------ upsample_nearest2d / upsample_bilinear2d
void upsample_shape(ShapeContext& c, bool bilinear) {
  const Tensor& t = c.arg(0).tensor();
  const IntList& size = c.args[1].int_list();
  AXLE_CHECK(size.size() == 2, ValueError, c.op, ": It is expected output_size equals to 2, but got size ",
             size.size());
  AXLE_CHECK(t.dim() == 4, ShapeError, c.op, ": It is expected input_size equals to 4, but got size ", t.dim(),
             " (input of size ", str(t.sizes()), ")");
  const int64_t ih = t.sizes()[2], iw = t.sizes()[3];
  AXLE_CHECK(ih > 0 && iw > 0 && size[0] > 0 && size[1] > 0, ShapeError, c.op,
             ": Input and output sizes should be greater than 0, but got input (H: ", ih, ", W: ", iw,
             ") output (H: ", size[0], ", W: ", size[1], ")");
  AXLE_CHECK(t.sizes()[1] > 0, ShapeError, c.op, ": Non-empty 4D data tensor expected but got a tensor with sizes ",
             str(t.sizes()));
  if (bilinear)
    check_norm_dtype(c.op, t.dtype());
  else
    AXLE_CHECK(in(t.dtype(), {kFloat32, kFloat64, kBFloat16, kUInt8}), DTypeError, c.op, ": not implemented for ",
               dtype_name(t.dtype()), " (float32, float64, bfloat16 and uint8 only)");
  c.outputs = {{{t.sizes()[0], t.sizes()[1], size[0], size[1]}, t.dtype()}};
}
void upsample_nearest_shape(ShapeContext& c) { upsample_shape(c, false); }
void upsample_bilinear_shape(ShapeContext& c) { upsample_shape(c, true); }

// ------------------------------------------------------------ pad
// torch 1.13's aten::pad: constant pads any trailing dims (negative = crop);
// reflect / replicate / circular pad 1, 2 or 3 trailing dims of a (batched) input.
void pad_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  const IntList& pad = c.args[1].int_list();
  const std::string mode = c.args[2].str();
  AXLE_CHECK(mode == "constant" || mode == "reflect" || mode == "replicate" || mode == "circular", NotImplementedError,
             c.op, ": Unrecognised padding mode ", mode);
  const int64_t n = t.dim(), k = static_cast<int64_t>(pad.size()) / 2;
  AXLE_CHECK(pad.size() % 2 == 0, ValueError, c.op, ": Padding length must be divisible by 2, got ", str(pad));
  AXLE_CHECK(k <= n, ValueError, c.op, ": Padding length too large (", pad.size(), " for an input of ", n, " dims)");
  IntList out = t.sizes();
  if (mode == "constant") {
    if (c.args[3].is_none()) c.args[3] = 0.0;
    check_scalar_fits(c.op, t.dtype(), c.args[3]);
  } else {
    AXLE_CHECK(c.args[3].is_none() || c.args[3].to_double() == 0, ValueError, c.op, ": Padding mode \"", mode,
               "\" doesn't take in value argument");
    AXLE_CHECK(k >= 1 && k <= 3 && (n == k + 1 || n == k + 2), NotImplementedError, c.op,
               ": Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now (", pad.size(),
               " padding values for an input of ", n, " dims)");
    if (mode == "circular")
      AXLE_CHECK(n == k + 2, ValueError, c.op, ": Invalid padding size, expected ", 2 * (n - 2), " but got ",
                 pad.size(), " (circular padding needs a batch dim)");
    else
      AXLE_CHECK(in(t.dtype(), {kFloat32, kFloat64}), DTypeError, c.op, ": ", mode, " padding is not implemented for ",
                 dtype_name(t.dtype()), " (float32 and float64 only)");
    for (int64_t d = 1; d < n; ++d)
      AXLE_CHECK(t.sizes()[d] != 0 || mode == "circular", ShapeError, c.op,
                 ": Expected a tensor with possibly 0 batch size and other non-zero dimensions for input, but got ",
                 str(t.sizes()));
  }
  for (int64_t i = 0; i < k; ++i) {
    const int64_t d = n - 1 - i, lo = pad[2 * i], hi = pad[2 * i + 1], size = t.sizes()[d];
    if (mode == "reflect")
      AXLE_CHECK(lo < size && hi < size, ShapeError, c.op,
                 ": Padding size should be less than the corresponding input dimension, but got: padding (", lo, ", ",
                 hi, ") at dimension ", d, " of input ", str(t.sizes()));
    if (mode == "circular")
      AXLE_CHECK(lo <= size && hi <= size, ShapeError, c.op,
                 ": Padding value causes wrapping around more than once (padding (", lo, ", ", hi, ") at dimension ", d,
                 " of input ", str(t.sizes()), ")");
    AXLE_CHECK(!__builtin_add_overflow(size, lo, &out[d]) && !__builtin_add_overflow(out[d], hi, &out[d]), ValueError,
               c.op, ": padding (", lo, ", ", hi, ") at dimension ", d, " overflows the size");
    if (mode == "constant")
      AXLE_CHECK(out[d] >= 0, ShapeError, c.op, ": The input size ", size, ", plus negative padding ", lo, " and ", hi,
                 " resulted in a negative output size, which is invalid. Check dimension ", d, " of your input.");
    else if (mode == "circular")
      AXLE_CHECK(out[d] >= 0, ShapeError, c.op, ": Negative padding value is resulting in an empty dimension");
    else
      AXLE_CHECK(out[d] >= 1, ShapeError, c.op, ": input (size ", size, " at dimension ", d,
                 ") is too small. Calculated output size: ", out[d]);
  }
  c.outputs = {{out, t.dtype()}};
}

}  // namespace

std::vector<OpDecl> nn_ops() {
  return {
      {.schema = "softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
       .shape = &softmax_shape,
       .doc = "exp(x) / sum(exp(x)) along dim, numerically stable (input converted to dtype first).",
       .flags = kNNFunctional,
       .derivative = {.vjp = &derivatives::softmax, .saves = save_output(0)}},
      {.schema = "log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
       .shape = &softmax_shape,
       .doc = "x - max - log(sum(exp(x - max))) along dim (input converted to dtype first).",
       .flags = kNNFunctional,
       .derivative = {.vjp = &derivatives::log_softmax, .saves = save_output(0)}},
      {.schema = "batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, "
                 "bool training, float momentum, float eps, bool cudnn_enabled) -> Tensor",
       .shape = &batch_norm_shape,
       .doc = "Per-channel (dim 1) normalization with running statistics (training=False) or batch statistics "
              "(training=True without running statistics; updating them is not implemented).",
       .derivative = {.vjp = &derivatives::batch_norm, .saves = save_arg(0) | save_arg(1) | save_arg(3) | save_arg(4)}},
      {.schema = "_native_batch_norm_legit.no_stats(Tensor input, Tensor? weight, Tensor? bias, bool training, float "
                 "momentum, float eps) -> (Tensor, Tensor, Tensor)",
       .shape = &batch_norm_no_stats_shape,
       .composite = &batch_norm_no_stats_composite,
       .doc = "Batch normalization over the batch's statistics: (out, save_mean, save_invstd), the statistics per "
              "channel (float32 for bfloat16 input). momentum is unused (no running statistics).",
       .derivative = {.vjp = &derivatives::batch_norm_no_stats,
                      .saves = save_arg(0) | save_arg(1) | save_output(1) | save_output(2)}},
      {.schema = "_native_batch_norm_legit(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean, "
                 "Tensor(b!) running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
       .shape = &batch_norm_legit_shape,
       .composite = &batch_norm_legit_composite,
       .doc = "Batch normalization that updates running_mean / running_var in place with momentum (training: the "
              "batch's mean and unbiased variance; returns out, save_mean, save_invstd) or normalizes with them "
              "(evaluation: empty statistics).",
       .derivative = {.vjp = &derivatives::batch_norm_legit,
                      .saves =
                          save_arg(0) | save_arg(1) | save_arg(3) | save_arg(4) | save_output(1) | save_output(2)}},
      {.schema = "layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float "
                 "eps=1e-05, bool cudnn_enable=True) -> Tensor",
       .shape = &layer_norm_shape,
       .doc = "Normalizes over the trailing normalized_shape dims (biased variance).",
       .flags = kNNFunctional,
       .derivative = {.vjp = &derivatives::layer_norm, .saves = save_arg(0) | save_arg(2)}},
      {.schema = "group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, "
                 "bool cudnn_enabled=True) -> Tensor",
       .shape = &group_norm_shape,
       .doc = "Normalizes each of num_groups channel groups per sample, then per-channel affine.",
       .flags = kNNFunctional,
       .derivative = {.vjp = &derivatives::group_norm, .saves = save_arg(0) | save_arg(2)}},
      {.schema = "rms_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, float? eps=None) -> Tensor",
       .shape = &rms_norm_shape,
       .doc = "x / sqrt(mean(x^2 over normalized_shape) + eps) * weight (torch 2.x; eps None: finfo(dtype).eps).",
       .flags = kNNFunctional,
       .derivative = {.vjp = &derivatives::rms_norm, .saves = save_arg(0) | save_arg(2)}},
      {.schema = "dropout(Tensor input, float p, bool train) -> Tensor",
       .composite = &dropout_composite,
       .doc = "Identity unless training; while training, zeros with probability p (the default generator) and the rest "
              "scaled by 1/(1-p).",
       .derivative = {.decomposes = true}},
      {.schema = "scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, float "
                 "dropout_p=0.0, bool is_causal=False, *, float? scale=None) -> Tensor",
       .composite = &sdpa_composite,
       .doc = "softmax(query @ key^T * scale + mask) @ value (torch 2.x); bool masks keep True positions.",
       .flags = kNNOnly,
       .derivative = {.decomposes = true}},
      {.schema =
           "upsample_nearest2d(Tensor self, int[2] output_size, float? scales_h=None, float? scales_w=None) -> Tensor",
       .shape = &upsample_nearest_shape,
       .doc = "Nearest-neighbour resize of the last 2 dims (what F.interpolate calls).",
       .flags = kNNOnly,
       .derivative = {.vjp = &derivatives::upsample_nearest2d}},
      {.schema = "upsample_bilinear2d(Tensor self, int[2] output_size, bool align_corners, float? scales_h=None, "
                 "float? scales_w=None) -> Tensor",
       .shape = &upsample_bilinear_shape,
       .doc = "Bilinear resize of the last 2 dims (what F.interpolate calls).",
       .flags = kNNOnly,
       .derivative = {.vjp = &derivatives::upsample_bilinear2d}},
      {.schema = "pad(Tensor self, int[] pad, str mode=\"constant\", float? value=None) -> Tensor",
       .shape = &pad_shape,
       .doc = "Pads trailing dims: constant (value, negative pads crop), reflect, replicate or circular.",
       .flags = kNNOnly,
       .derivative = {.vjp = &derivatives::pad}},
  };
}

}  // namespace axle::shape
