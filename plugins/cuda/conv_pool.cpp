// Convolution and 2-d pooling on cuDNN's legacy API (cudnn_cnn.h / cudnn_ops.h).
//
// convolution.out: 1-d (3-d tensors, seen as H = 1) and 2-d convolutions with
// stride, padding, dilation and groups. A plain one is cudnnConvolutionForward;
// a transposed one is the adjoint of the convolution it transposes, which is
// cudnnConvolutionBackwardData with torch's [C_in, C_out / groups, k...] weight
// as that convolution's filter (output_padding >= stride is declined: cuDNN
// derives the output size from the forward formula). The bias is added after
// with the pointwise kernel, as torch does. Input and output keep their strides (channels_last and other
// layouts, no copies); the weight must be dense NCHW or NHWC (cuDNN's filter
// descriptor has no strides), NHWC only with channels_last input and output;
// another weight layout is first copied dense (NCHW) on the GPU.
// float32, float64, float16 and bfloat16 (float accumulation for the 16-bit
// types, as torch); 3-d convolutions, other dtypes, mixed dtypes or devices and
// an output overlapping an input are declined, as is whatever cuDNN answers
// with CUDNN_STATUS_NOT_SUPPORTED.
//
// Float32 math follows matmul_precision (see conv_math). Algorithms: cuDNN's
// heuristics (cudnnGet*Algorithm_v7), in their order, keeping those whose
// workspace size cuDNN reports; the list is cached per shape, strides, pointer
// alignment, dtype, parameters, math policy and device, so a repeated call does
// not query again.
// A call runs the first one whose workspace the caching allocator can provide.
// With the "deterministic" option only deterministic algorithms are used.
//
// convolution_backward: cudnnConvolutionBackwardData (input gradient) and
// cudnnConvolutionBackwardFilter (weight gradient), the bias gradient as a sum
// on the reduction kernel; 1-d and 2-d, not transposed.
//
// avg_pool2d: cudnnPoolingForward (with or without the padding in the count;
// a NaN reaches the average through its sum); ceil_mode and divisor_override
// are declined. max_pool2d and max_pool2d_with_indices: pool.cu's kernel, not
// cuDNN (whose running maximum starts at -FLT_MAX: a window of -inf would not
// be -inf, and it gives no indices); any strides, dilation and ceil_mode; their
// backward max_pool2d_with_indices_backward is pool.cu's gather.
#include "allocator.h"
#include "cudnn_util.h"
#include "kernels.h"

#include <climits>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace axle::cuda {
namespace {

using plugin::arg_bool;
using plugin::arg_int;
using plugin::arg_ints;
using plugin::arg_is_none;
using plugin::arg_tensor;
using plugin::option_is;

// The shape functions expand the lists to one value per spatial dim; one value serves every dim.
bool list_at(const std::vector<int64_t>& v, size_t i, int* out) {
  if (v.empty()) return false;
  const int64_t x = v.size() == 1 ? v[0] : i < v.size() ? v[i] : -1;
  if (x < 0 || x > INT_MAX) return false;
  *out = static_cast<int>(x);
  return true;
}

// ---------------------------------------------------------------- math policy

// How a convolution of one dtype may compute, from the options of the call.
struct Policy {
  cudnnDataType_t data = CUDNN_DATA_FLOAT;
  cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  bool fma_only = false;       // float32 at "highest": no TF32 tensor-core kernels
  bool deterministic = false;  // the "deterministic" option
};

// Float32's math type for the configured matmul precision (read as blas.cpp does).
// In cuDNN 8 and 9, CUDNN_DEFAULT_MATH lets float32 convolutions use TF32 tensor
// cores on Ampere and newer (torch.backends.cudnn.allow_tf32 = True does exactly
// this), and CUDNN_FMA_MATH restricts them to FP32 FMA kernels (allow_tf32 =
// False). CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION is not a TF32 switch: it lets
// cuDNN down-convert FP32 data to FP16, and is never accepted for float32.
// "highest" (the default) -> CUDNN_FMA_MATH; "high" and "medium" ->
// CUDNN_DEFAULT_MATH (TF32; cuDNN has no BF16 compute mode for FP32 data).
cudnnMathType_t conv_math(const axle_kernel_call* c) {
  return option_is(c, "matmul_precision", "\"high\"") || option_is(c, "matmul_precision", "\"medium\"")
             ? CUDNN_DEFAULT_MATH
             : CUDNN_FMA_MATH;
}

// Float16 / bfloat16 accumulate in float (cuDNN's PSEUDO_HALF / PSEUDO_BFLOAT16
// configurations, as torch) on tensor cores; float64 computes in double.
bool conv_policy(const axle_kernel_call* c, axle_dtype d, Policy* p) {
  if (!cudnn_dtype(d, &p->data)) return false;
  p->compute = d == AXLE_DTYPE_FLOAT64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  p->math = d == AXLE_DTYPE_FLOAT32   ? conv_math(c)
            : d == AXLE_DTYPE_FLOAT64 ? CUDNN_DEFAULT_MATH
                                      : CUDNN_TENSOR_OP_MATH;
  p->fma_only = d == AXLE_DTYPE_FLOAT32 && p->math == CUDNN_FMA_MATH;
  p->deterministic = option_is(c, "deterministic", "true");
  return true;
}

// Whether a heuristic result may run under the policy.
bool acceptable(const Policy& p, cudnnStatus_t status, cudnnDeterminism_t det, cudnnMathType_t math) {
  if (status != CUDNN_STATUS_SUCCESS) return false;
  if (p.deterministic && det != CUDNN_DETERMINISTIC) return false;
  if (p.fma_only && math != CUDNN_FMA_MATH) return false;
  return !(p.data == CUDNN_DATA_FLOAT && math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION);
}

// ---------------------------------------------------------------- algorithm cache

struct Algo {
  int algo = 0;  // a cudnnConvolutionFwdAlgo_t or cudnnConvolutionBwdDataAlgo_t
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  size_t workspace = 0;
};

struct AlgoCache {
  std::mutex mutex;
  std::map<std::vector<int64_t>, std::vector<Algo>> entries;
};
AlgoCache& algo_cache() {
  static AlgoCache* cache = new AlgoCache;  // never destroyed: kernels may run during exit
  return *cache;
}

bool cached_algos(const std::vector<int64_t>& key, std::vector<Algo>* algos) {
  AlgoCache& cache = algo_cache();
  std::lock_guard lock(cache.mutex);
  auto it = cache.entries.find(key);
  if (it == cache.entries.end()) return false;
  *algos = it->second;
  return true;
}

void store_algos(const std::vector<int64_t>& key, const std::vector<Algo>& algos) {
  AlgoCache& cache = algo_cache();
  std::lock_guard lock(cache.mutex);
  cache.entries[key] = algos;
}

// Drops an algorithm cuDNN refused to run, so later calls do not try it again.
void forget_algo(const std::vector<int64_t>& key, int algo) {
  AlgoCache& cache = algo_cache();
  std::lock_guard lock(cache.mutex);
  auto it = cache.entries.find(key);
  if (it == cache.entries.end()) return;
  std::erase_if(it->second, [&](const Algo& a) { return a.algo == algo; });
}

// ---------------------------------------------------------------- convolution

// Which cuDNN routine one convolution call runs. In every pass `in` is the
// forward convolution's input side as cuDNN names it below, `out` its output side:
//   Forward: x -> y (cudnnConvolutionForward): in = x, out = y, weight read;
//   BackwardData: dy -> dx (cudnnConvolutionBackwardData; also what a transposed
//     convolution computes): in = dy, out = dx, weight read;
//   BackwardFilter: x, dy -> dw (cudnnConvolutionBackwardFilter): in = x, out = dy
//     (read), weight = dw (written).
enum class Pass : int64_t { Forward, BackwardData, BackwardFilter };

// One convolution call as cuDNN sees it.
struct Conv {
  const axle_kernel_call* c = nullptr;
  int device = 0;
  Pass pass = Pass::Forward;
  Policy policy;
  cudnnHandle_t handle = nullptr;
  TensorDescriptor in, out;
  FilterDescriptor weight;
  ConvolutionDescriptor conv;
  void* in_data = nullptr;
  void* weight_data = nullptr;
  void* out_data = nullptr;
  std::vector<int64_t> key;
};

// Geometry read from the call: per spatial dim of the 4-d view (H, W).
struct ConvShape {
  Nchw in, weight, out;
  bool weight_nhwc = false;
  int pad[2] = {0, 0}, stride[2] = {1, 1}, dilation[2] = {1, 1};
  int groups = 1;
};

// Reads stride / padding / dilation (and, for a transposed convolution,
// checks output_padding) for the spatial dims: the arguments stride, padding,
// dilation, transposed, output_padding, groups from index `first` on.
bool read_geometry(const axle_kernel_call* c, int first, bool transposed, int spatial, ConvShape* s) {
  const auto stride = arg_ints(c, first), padding = arg_ints(c, first + 1), dilation = arg_ints(c, first + 2),
             output_padding = arg_ints(c, first + 4);
  for (int d = 0; d < spatial; ++d) {
    const int k = 2 - spatial + d;  // a 1-d convolution fills W only
    int op = 0;
    if (!list_at(stride, d, &s->stride[k]) || !list_at(padding, d, &s->pad[k]) ||
        !list_at(dilation, d, &s->dilation[k]) || s->stride[k] < 1 || s->dilation[k] < 1)
      return false;
    if (transposed && (!list_at(output_padding, d, &op) || op >= s->stride[k])) return false;
  }
  const int64_t groups = arg_int(c, first + 5);
  if (groups < 1 || groups > INT_MAX) return false;
  s->groups = static_cast<int>(groups);
  return true;
}

// The forward convolution's output size along 4-d dim k (2 or 3) of `x` (cuDNN's formula).
int64_t forward_size(const ConvShape& s, const Nchw& x, int k) {
  const int d = k - 2;
  const int64_t extent = int64_t{s.dilation[d]} * (s.weight.sizes[k] - 1) + 1;
  return (x.sizes[k] + 2 * int64_t{s.pad[d]} - extent) / s.stride[d] + 1;
}

// Whether cuDNN's view of the call is consistent: y has the size of the
// forward convolution of x (for BackwardData, the shape's `in` is dy and `out` dx).
bool consistent(const ConvShape& s, Pass pass) {
  const Nchw& x = pass == Pass::BackwardData ? s.out : s.in;
  const Nchw& y = pass == Pass::BackwardData ? s.in : s.out;
  for (int k = 2; k < 4; ++k)
    if (x.sizes[k] + 2 * int64_t{s.pad[k - 2]} < int64_t{s.dilation[k - 2]} * (s.weight.sizes[k] - 1) + 1 ||
        forward_size(s, x, k) != y.sizes[k])
      return false;
  return true;
}

// Describes the weight: dense NCHW, or dense NHWC with channels_last input and output.
bool weight_layout(const ConvShape& s, bool* nhwc) {
  const bool cl = s.in.channels_last() && s.out.channels_last();
  if (s.weight.packed(false) && !(cl && s.weight.packed(true))) {
    *nhwc = false;
    return true;
  }
  *nhwc = true;
  return cl && s.weight.packed(true);
}

// A pointer's alignment (a power of two, capped at 256 bytes). It is part of the
// cache key: cuDNN may refuse an algorithm for a misaligned pointer (declined,
// then forgotten), which must not drop it for calls whose pointers are aligned.
int64_t alignment(const void* p) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  return a % 256 == 0 ? 256 : static_cast<int64_t>(a & (~a + 1));
}

void append(std::vector<int64_t>& key, const Nchw& t) {
  key.insert(key.end(), t.sizes, t.sizes + 4);
  key.insert(key.end(), t.strides, t.strides + 4);
}

std::vector<int64_t> conv_key(const Conv& k, const ConvShape& s) {
  std::vector<int64_t> key = {k.device,      static_cast<int64_t>(k.pass), k.policy.data,
                              k.policy.math, k.policy.deterministic,       s.groups,
                              s.weight_nhwc};
  for (int d = 0; d < 2; ++d) key.insert(key.end(), {s.pad[d], s.stride[d], s.dilation[d]});
  key.insert(key.end(), {alignment(k.in_data), alignment(k.weight_data), alignment(k.out_data)});
  append(key, s.in);
  append(key, s.weight);
  append(key, s.out);
  return key;
}

axle_status describe(Conv& k, const ConvShape& s) {
  const axle_kernel_call* c = k.c;
  if (axle_status st = set_tensor(k.in, k.policy.data, s.in, c)) return st;
  if (axle_status st = set_tensor(k.out, k.policy.data, s.out, c)) return st;
  if (axle_status st = check_cudnn(k.weight.create(), "cudnnCreateFilterDescriptor", c)) return st;
  const cudnnTensorFormat_t format = s.weight_nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
  if (axle_status st = check_cudnn(cudnnSetFilterNdDescriptor(k.weight.get(), k.policy.data, format, 4, s.weight.sizes),
                                   "cudnnSetFilterNdDescriptor", c))
    return st;
  if (axle_status st = check_cudnn(k.conv.create(), "cudnnCreateConvolutionDescriptor", c)) return st;
  if (axle_status st = check_cudnn(
          cudnnSetConvolution2dDescriptor(k.conv.get(), s.pad[0], s.pad[1], s.stride[0], s.stride[1], s.dilation[0],
                                          s.dilation[1], CUDNN_CROSS_CORRELATION, k.policy.compute),
          "cudnnSetConvolution2dDescriptor", c))
    return st;
  if (axle_status st =
          check_cudnn(cudnnSetConvolutionGroupCount(k.conv.get(), s.groups), "cudnnSetConvolutionGroupCount", c))
    return st;
  return check_cudnn(cudnnSetConvolutionMathType(k.conv.get(), k.policy.math), "cudnnSetConvolutionMathType", c);
}

// Describes the pass and points it at its data (read-only ones too: cuDNN's
// signatures take them const) and its cache key.
axle_status prepare(Conv& k, const ConvShape& s, const void* in, const void* weight, const void* out) {
  if (axle_status st = describe(k, s)) return st;
  k.in_data = const_cast<void*>(in);
  k.weight_data = const_cast<void*>(weight);
  k.out_data = const_cast<void*>(out);
  k.key = conv_key(k, s);
  return AXLE_OK;
}

axle_status set_math(const Conv& k, cudnnMathType_t math) {
  return check_cudnn(cudnnSetConvolutionMathType(k.conv.get(), math), "cudnnSetConvolutionMathType", k.c);
}

// Keeps the heuristic results the policy accepts and whose workspace size cuDNN
// reports (in the heuristic's order). `size(algo, &bytes)` queries one.
template <typename Perf, typename Size>
axle_status keep_usable(const Conv& k, const Perf* perf, int n, Size&& size, std::vector<Algo>* algos) {
  for (int i = 0; i < n; ++i) {
    const Perf& p = perf[i];
    if (!acceptable(k.policy, p.status, p.determinism, p.mathType)) continue;
    // The math type is part of the algorithm (cuDNN 7.4+): set it before the size query and the run.
    if (axle_status s = set_math(k, p.mathType)) return s;
    size_t bytes = 0;
    const axle_status s = size(p.algo, &bytes);
    if (s == AXLE_DECLINED) continue;
    if (s != AXLE_OK) return s;
    algos->push_back({static_cast<int>(p.algo), p.mathType, bytes});
  }
  return AXLE_OK;
}

axle_status forward_algos(const Conv& k, std::vector<Algo>* algos) {
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int n = 0;
  if (axle_status s =
          check_cudnn(cudnnGetConvolutionForwardAlgorithm_v7(k.handle, k.in.get(), k.weight.get(), k.conv.get(),
                                                             k.out.get(), CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n, perf),
                      "cudnnGetConvolutionForwardAlgorithm_v7", k.c))
    return s;
  return keep_usable(
      k, perf, n,
      [&](cudnnConvolutionFwdAlgo_t algo, size_t* bytes) {
        return check_cudnn(cudnnGetConvolutionForwardWorkspaceSize(k.handle, k.in.get(), k.weight.get(), k.conv.get(),
                                                                   k.out.get(), algo, bytes),
                           "cudnnGetConvolutionForwardWorkspaceSize", k.c);
      },
      algos);
}

axle_status backward_data_algos(const Conv& k, std::vector<Algo>* algos) {
  cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
  int n = 0;
  if (axle_status s = check_cudnn(
          cudnnGetConvolutionBackwardDataAlgorithm_v7(k.handle, k.weight.get(), k.in.get(), k.conv.get(), k.out.get(),
                                                      CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &n, perf),
          "cudnnGetConvolutionBackwardDataAlgorithm_v7", k.c))
    return s;
  return keep_usable(
      k, perf, n,
      [&](cudnnConvolutionBwdDataAlgo_t algo, size_t* bytes) {
        return check_cudnn(cudnnGetConvolutionBackwardDataWorkspaceSize(k.handle, k.weight.get(), k.in.get(),
                                                                        k.conv.get(), k.out.get(), algo, bytes),
                           "cudnnGetConvolutionBackwardDataWorkspaceSize", k.c);
      },
      algos);
}

axle_status backward_filter_algos(const Conv& k, std::vector<Algo>* algos) {
  cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
  int n = 0;
  if (axle_status s = check_cudnn(
          cudnnGetConvolutionBackwardFilterAlgorithm_v7(k.handle, k.in.get(), k.out.get(), k.conv.get(), k.weight.get(),
                                                        CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &n, perf),
          "cudnnGetConvolutionBackwardFilterAlgorithm_v7", k.c))
    return s;
  return keep_usable(
      k, perf, n,
      [&](cudnnConvolutionBwdFilterAlgo_t algo, size_t* bytes) {
        return check_cudnn(cudnnGetConvolutionBackwardFilterWorkspaceSize(k.handle, k.in.get(), k.out.get(),
                                                                          k.conv.get(), k.weight.get(), algo, bytes),
                           "cudnnGetConvolutionBackwardFilterWorkspaceSize", k.c);
      },
      algos);
}

// The call's candidate algorithms: cached, or from the heuristics (then cached).
axle_status candidates(const Conv& k, std::vector<Algo>* algos) {
  if (cached_algos(k.key, algos)) return AXLE_OK;
  const axle_status s = k.pass == Pass::Forward        ? forward_algos(k, algos)
                        : k.pass == Pass::BackwardData ? backward_data_algos(k, algos)
                                                       : backward_filter_algos(k, algos);
  if (s == AXLE_DECLINED)
    algos->clear();
  else if (s != AXLE_OK)
    return s;
  store_algos(k.key, *algos);  // an empty list: declined at once next time
  return AXLE_OK;
}

cudnnStatus_t execute(const Conv& k, const Algo& a, void* workspace) {
  const void* one = cudnn_one(k.policy.data);
  const void* zero = cudnn_zero(k.policy.data);  // beta 0: the result is not read
  switch (k.pass) {
    case Pass::Forward:
      return cudnnConvolutionForward(k.handle, one, k.in.get(), k.in_data, k.weight.get(), k.weight_data, k.conv.get(),
                                     static_cast<cudnnConvolutionFwdAlgo_t>(a.algo), workspace, a.workspace, zero,
                                     k.out.get(), k.out_data);
    case Pass::BackwardData:
      return cudnnConvolutionBackwardData(k.handle, one, k.weight.get(), k.weight_data, k.in.get(), k.in_data,
                                          k.conv.get(), static_cast<cudnnConvolutionBwdDataAlgo_t>(a.algo), workspace,
                                          a.workspace, zero, k.out.get(), k.out_data);
    case Pass::BackwardFilter:
      return cudnnConvolutionBackwardFilter(k.handle, one, k.in.get(), k.in_data, k.out.get(), k.out_data, k.conv.get(),
                                            static_cast<cudnnConvolutionBwdFilterAlgo_t>(a.algo), workspace,
                                            a.workspace, zero, k.weight.get(), k.weight_data);
  }
  return CUDNN_STATUS_BAD_PARAM;
}

const char* routine(Pass pass) {
  return pass == Pass::Forward        ? "cudnnConvolutionForward"
         : pass == Pass::BackwardData ? "cudnnConvolutionBackwardData"
                                      : "cudnnConvolutionBackwardFilter";
}

// Runs the first candidate whose workspace can be allocated and which cuDNN
// accepts; AXLE_DECLINED (nothing written) when none is accepted.
axle_status run_conv(const Conv& k, const std::vector<Algo>& algos) {
  bool out_of_memory = false;
  for (const Algo& a : algos) {
    void* workspace = nullptr;
    if (a.workspace > 0) {
      const axle_status s = cached_malloc(k.device, a.workspace, k.c->stream, &workspace, k.c);
      if (s == AXLE_ERROR_OUT_OF_MEMORY) {
        out_of_memory = true;  // a later algorithm may need less
        continue;
      }
      if (s != AXLE_OK) return s;
    }
    axle_status s = set_math(k, a.math);
    if (s == AXLE_OK) s = check_cudnn(execute(k, a, workspace), routine(k.pass), k.c);
    // Freed on the call's stream, the block is reused only by work enqueued
    // after this convolution on that stream (stream-ordered pools).
    cached_free(k.device, workspace);
    if (s != AXLE_DECLINED) return s;
    forget_algo(k.key, a.algo);
  }
  if (out_of_memory) return AXLE_ERROR_OUT_OF_MEMORY;  // the message is on the call (cached_malloc)
  return AXLE_DECLINED;
}

// out += bias over dim 1, with the pointwise kernel, as torch 1.13 adds the
// bias after cuDNN's convolution (output.add_(bias)): the same rounding for
// every dtype and layout, and no deprecated cudnnAddTensor.
axle_status add_bias_pointwise(const axle_kernel_call* c, const axle_tensor_view& bias, const axle_tensor_view& out) {
  const int64_t sizes[3] = {bias.sizes[0], 1, 1}, strides[3] = {bias.strides[0], 0, 0};
  axle_tensor_view channels = bias;  // [C, 1(, 1)]: aligned to the output's dims 1..
  channels.ndim = out.ndim - 1;
  channels.sizes = sizes;
  channels.strides = strides;
  return add_broadcast(c, out, channels, 1.0, "convolution bias");
}

// The bias argument, or NULL for None.
const axle_tensor_view* bias_arg(const axle_kernel_call* c) {
  if (arg_is_none(c, 2) || c->args[2].tag != AXLE_VALUE_TENSOR) return nullptr;
  const axle_tensor_view& b = arg_tensor(c, 2);
  return b.ndim >= 0 && b.data ? &b : nullptr;
}

// Everything cuDNN needs besides the descriptors for a pass over `in`, `wt`
// and `out` (as Pass names them; the geometry arguments from index `first`);
// false: declined.
bool conv_shape(const axle_kernel_call* c, int first, bool transposed, Pass pass, const axle_tensor_view& in,
                const axle_tensor_view& wt, const axle_tensor_view& out, ConvShape* s) {
  if (!read_geometry(c, first, transposed, in.ndim - 2, s)) return false;
  if (!as_nchw(in, 2, &s->in) || !as_nchw(wt, 2, &s->weight) || !as_nchw(out, 2, &s->out)) return false;
  const Nchw& written = pass == Pass::BackwardFilter ? s->weight : s->out;
  return written.non_overlapping() && consistent(*s, pass) && weight_layout(*s, &s->weight_nhwc);
}

bool bias_fits(const axle_tensor_view* bias, const axle_tensor_view& out) {
  if (!bias) return true;
  const int64_t channels = out.sizes[1];
  return bias->ndim == 1 && bias->sizes[0] == channels && bias->strides[0] > 0 && channels * bias->strides[0] < INT_MAX;
}

bool same_placement(const axle_tensor_view& a, const axle_tensor_view& out) {
  return a.dtype == out.dtype && a.device_index == out.device_index && !plugin::views_overlap(a, out);
}

// convolution.out(input, weight, bias?, stride, padding, dilation, transposed, output_padding, groups, *, out)
axle_status convolution(void*, const axle_kernel_call* c) {
  const axle_tensor_view &in = arg_tensor(c, 0), &wt = arg_tensor(c, 1), &out = c->outputs[0];
  const axle_tensor_view* bias = bias_arg(c);
  Conv k;
  k.c = c;
  k.device = out.device_index;
  const bool transposed = arg_bool(c, 6);
  k.pass = transposed ? Pass::BackwardData : Pass::Forward;
  if ((in.ndim != 3 && in.ndim != 4) || wt.ndim != in.ndim || out.ndim != in.ndim ||
      !conv_policy(c, out.dtype, &k.policy) || !same_placement(in, out) || !same_placement(wt, out) ||
      (bias && !same_placement(*bias, out)))
    return AXLE_DECLINED;
  if (plugin::numel(out) == 0) return AXLE_OK;
  if (plugin::numel(in) == 0 || plugin::numel(wt) == 0) return AXLE_DECLINED;  // out = bias: the reference's job
  DeviceGuard guard(k.device);
  if (axle_status s = guard.status(c)) return s;
  ConvShape s;
  const axle_tensor_view* weight = &wt;
  DenseCopy weight_copy;
  if (!bias_fits(bias, out)) return AXLE_DECLINED;
  if (!conv_shape(c, 3, transposed, k.pass, in, wt, out, &s)) {
    // A weight the filter descriptor cannot describe (it has no strides), such
    // as the transposed gradient convolution_backward's composite passes for
    // the weight's gradient: one dense copy on the GPU rather than the host.
    if (plugin::is_contiguous(wt)) return AXLE_DECLINED;
    if (axle_status st = dense_copy(c, wt, &weight_copy)) return st;
    weight = &weight_copy.view;
    if (!conv_shape(c, 3, transposed, k.pass, in, *weight, out, &s)) return AXLE_DECLINED;
  }
  if (axle_status st = cudnn_handle(k.device, c, &k.handle)) return st;
  if (axle_status st = prepare(k, s, in.data, weight->data, out.data)) return st;
  std::vector<Algo> algos;
  if (axle_status st = candidates(k, &algos)) return st;
  if (axle_status st = run_conv(k, algos)) return st;
  return bias ? add_bias_pointwise(c, *bias, out) : AXLE_OK;
}

// A view cuDNN can describe as it is, or else its dense copy (kept in `copy`):
// autograd's gradients may be broadcasts (the gradient of sum()) or in another
// layout than the input, a weight may be strided.
// The copy has the layout of `like` (channels_last or not), since cuDNN may not
// mix layouts.
axle_status describable(const axle_kernel_call* c, const axle_tensor_view& v, bool filter, const axle_tensor_view& like,
                        DenseCopy* copy, const axle_tensor_view** out) {
  Nchw probe, model;
  *out = &v;
  const bool channels_last = as_nchw(like, 2, &model) && model.channels_last();
  if (as_nchw(v, 2, &probe) &&
      (filter ? probe.packed(false) || probe.packed(true) : probe.channels_last() == channels_last))
    return AXLE_OK;
  if (axle_status st = dense_copy(c, v, copy, channels_last)) return st;
  *out = &copy->view;
  return AXLE_OK;
}

bool written_output(const axle_tensor_view& o, const axle_tensor_view& like, const axle_kernel_call* c) {
  if (o.dtype != like.dtype || o.device_index != like.device_index || o.ndim != like.ndim) return false;
  for (int i = 0; i < 3; ++i)
    if (plugin::views_overlap(o, arg_tensor(c, i))) return false;
  return true;
}

// convolution_backward(grad_output, input, weight, bias_sizes, stride, padding,
// dilation, transposed, output_padding, groups, output_mask) -> (grad_input,
// grad_weight, grad_bias): cudnnConvolutionBackwardData and
// cudnnConvolutionBackwardFilter (algorithms as the forward's: heuristics,
// cached per call shape), and the bias gradient as the reduction kernel's sum
// over every dim but channels. 1-d and 2-d, not transposed (the composite's
// convolutions serve a transposed one, on cuDNN too); outputs output_mask
// leaves out arrive unallocated and stay so. Both passes are planned before
// either runs; should cuDNN still refuse one at run time, the call is declined
// and the composite computes every output again.
axle_status convolution_backward(void*, const axle_kernel_call* c) {
  const axle_tensor_view &gy_arg = arg_tensor(c, 0), &x = arg_tensor(c, 1), &w_arg = arg_tensor(c, 2);
  const axle_tensor_view &gx = c->outputs[0], &gw = c->outputs[1], &gb = c->outputs[2];
  const bool want_x = gx.data != nullptr, want_w = gw.data != nullptr, want_b = gb.data != nullptr;
  Policy policy;
  if (arg_bool(c, 7) || (x.ndim != 3 && x.ndim != 4) || w_arg.ndim != x.ndim || gy_arg.ndim != x.ndim ||
      !conv_policy(c, x.dtype, &policy) || gy_arg.dtype != x.dtype || w_arg.dtype != x.dtype ||
      gy_arg.device_index != x.device_index || w_arg.device_index != x.device_index)
    return AXLE_DECLINED;
  if ((want_x && !written_output(gx, x, c)) || (want_w && !written_output(gw, x, c)) ||
      (want_b && (gb.dtype != x.dtype || gb.device_index != x.device_index || gb.ndim != 1)))
    return AXLE_DECLINED;
  if (!want_x && !want_w && !want_b) return AXLE_OK;
  if (want_b && gb.sizes[0] != gy_arg.sizes[1]) return AXLE_DECLINED;  // before anything is written
  // Empty tensors: the composite's zeros.
  if (plugin::numel(x) == 0 || plugin::numel(gy_arg) == 0 || plugin::numel(w_arg) == 0) return AXLE_DECLINED;
  DeviceGuard guard(x.device_index);
  if (axle_status st = guard.status(c)) return st;
  DenseCopy gy_copy, w_copy;
  const axle_tensor_view *gy = nullptr, *w = nullptr;
  if (axle_status st = describable(c, gy_arg, false, x, &gy_copy, &gy)) return st;
  if (want_x)
    if (axle_status st = describable(c, w_arg, true, w_arg, &w_copy, &w)) return st;
  cudnnHandle_t handle = nullptr;
  if (want_x || want_w)
    if (axle_status st = cudnn_handle(x.device_index, c, &handle)) return st;
  Conv data, filter;
  std::vector<Algo> data_algos, filter_algos;
  for (Conv* k : {&data, &filter}) {
    const bool data_pass = k == &data;
    if (!(data_pass ? want_x : want_w)) continue;
    k->c = c;
    k->device = x.device_index;
    k->pass = data_pass ? Pass::BackwardData : Pass::BackwardFilter;
    k->policy = policy;
    k->handle = handle;
    ConvShape s;
    if (data_pass ? !conv_shape(c, 4, false, k->pass, *gy, *w, gx, &s)
                  : !conv_shape(c, 4, false, k->pass, x, gw, *gy, &s))
      return AXLE_DECLINED;
    if (axle_status st =
            data_pass ? prepare(*k, s, gy->data, w->data, gx.data) : prepare(*k, s, x.data, gw.data, gy->data))
      return st;
    std::vector<Algo>& algos = data_pass ? data_algos : filter_algos;
    if (axle_status st = candidates(*k, &algos)) return st;
    if (algos.empty()) return AXLE_DECLINED;
  }
  if (want_x)
    if (axle_status st = run_conv(data, data_algos)) return st;
  if (want_w)
    if (axle_status st = run_conv(filter, filter_algos)) return st;
  if (!want_b) return AXLE_OK;
  bool reduced[4] = {true, false, true, true};
  return sum_over(c, *gy, reduced, gb);
}

// ---------------------------------------------------------------- pooling

// avg_pool2d(self, kernel_size, stride, padding, ceil_mode, count_include_pad,
// divisor_override); the shape function has expanded the int lists to two.
struct PoolShape {
  Nchw in, out;
  int kernel[2] = {1, 1}, stride[2] = {1, 1}, pad[2] = {0, 0};
};

bool pool_shape(const axle_kernel_call* c, PoolShape* s) {
  const auto kernel = arg_ints(c, 1), stride = arg_ints(c, 2), padding = arg_ints(c, 3);
  for (int d = 0; d < 2; ++d) {
    if (!list_at(kernel, d, &s->kernel[d]) || !list_at(stride, d, &s->stride[d]) || !list_at(padding, d, &s->pad[d]) ||
        s->kernel[d] < 1 || s->stride[d] < 1 || 2 * s->pad[d] > s->kernel[d])
      return false;
  }
  if (!as_nchw(arg_tensor(c, 0), 0, &s->in) || !as_nchw(c->outputs[0], 0, &s->out) || !s->out.non_overlapping())
    return false;
  for (int k = 2; k < 4; ++k) {  // cuDNN's output size (floor mode)
    const int d = k - 2;
    const int64_t padded = int64_t{s->in.sizes[k]} + 2 * int64_t{s->pad[d]};
    if (padded < s->kernel[d] || (padded - s->kernel[d]) / s->stride[d] + 1 != s->out.sizes[k]) return false;
  }
  return s->in.sizes[0] == s->out.sizes[0] && s->in.sizes[1] == s->out.sizes[1];
}

axle_status avg_pool2d(void*, const axle_kernel_call* c) {
  const axle_tensor_view &in = arg_tensor(c, 0), &out = c->outputs[0];
  cudnnDataType_t dt;
  if (arg_bool(c, 4) || !arg_is_none(c, 6) || in.ndim != out.ndim || !cudnn_dtype(out.dtype, &dt) ||
      !same_placement(in, out))
    return AXLE_DECLINED;
  if (plugin::numel(out) == 0) return AXLE_OK;
  PoolShape s;
  if (!pool_shape(c, &s)) return AXLE_DECLINED;
  const cudnnPoolingMode_t mode =
      arg_bool(c, 5) ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
  DeviceGuard guard(out.device_index);
  if (axle_status s = guard.status(c)) return s;
  cudnnHandle_t h = nullptr;
  if (axle_status st = cudnn_handle(out.device_index, c, &h)) return st;
  TensorDescriptor x, y;
  PoolingDescriptor p;
  if (axle_status st = set_tensor(x, dt, s.in, c)) return st;
  if (axle_status st = set_tensor(y, dt, s.out, c)) return st;
  if (axle_status st = check_cudnn(p.create(), "cudnnCreatePoolingDescriptor", c)) return st;
  if (axle_status st =
          check_cudnn(cudnnSetPooling2dDescriptor(p.get(), mode, CUDNN_PROPAGATE_NAN, s.kernel[0], s.kernel[1],
                                                  s.pad[0], s.pad[1], s.stride[0], s.stride[1]),
                      "cudnnSetPooling2dDescriptor", c))
    return st;
  return check_cudnn(
      cudnnPoolingForward(h, p.get(), cudnn_one(dt), x.get(), in.data, cudnn_zero(dt), y.get(), out.data),
      "cudnnPoolingForward", c);
}

// The geometry of a max pooling between `in` (the input side: x, or the input
// gradient) and `out` (y, or grad_output), with `indices` (may be NULL) of
// out's shape; kernel_size, stride, padding, dilation at arguments first..first + 3.
bool max_pool_geometry(const axle_kernel_call* c, int first, const axle_tensor_view& in, const axle_tensor_view& out,
                       const axle_tensor_view* indices, MaxPool2d* p) {
  if ((in.ndim != 3 && in.ndim != 4) || out.ndim != in.ndim || (indices && indices->ndim != out.ndim)) return false;
  const int lead = in.ndim - 3;  // 0 for [C, H, W], 1 for [N, C, H, W]
  for (int d = 0; d < in.ndim - 2; ++d)
    if (in.sizes[d] != out.sizes[d]) return false;
  if (indices)
    for (int d = 0; d < out.ndim; ++d)
      if (indices->sizes[d] != out.sizes[d]) return false;
  p->n = lead ? in.sizes[0] : 1;
  p->c = in.sizes[lead];
  p->in_h = in.sizes[lead + 1], p->in_w = in.sizes[lead + 2];
  p->out_h = out.sizes[lead + 1], p->out_w = out.sizes[lead + 2];
  for (int d = 0; d < 4; ++d) {  // [C, H, W] as [1, C, H, W]
    const int k = d - 1 + lead;
    p->in_stride[d] = k >= 0 ? in.strides[k] : 0;
    p->out_stride[d] = k >= 0 ? out.strides[k] : 0;
    p->index_stride[d] = indices && k >= 0 ? indices->strides[k] : 0;
  }
  const auto kernel = arg_ints(c, first), stride = arg_ints(c, first + 1), padding = arg_ints(c, first + 2),
             dilation = arg_ints(c, first + 3);
  for (int d = 0; d < 2; ++d) {
    int k = 0, st = 0, pad = 0, dil = 0;
    if (!list_at(kernel, d, &k) || !list_at(stride, d, &st) || !list_at(padding, d, &pad) ||
        !list_at(dilation, d, &dil) || k < 1 || st < 1 || dil < 1)
      return false;
    p->kernel[d] = k, p->stride[d] = st, p->pad[d] = pad, p->dilation[d] = dil;
  }
  return true;
}

// max_pool2d(self, kernel_size, stride, padding, dilation, ceil_mode) -> out and
// max_pool2d_with_indices(...) -> (out, indices), 3-d or 4-d, floating dtypes.
axle_status max_pool(const axle_kernel_call* c, bool with_indices) {
  const axle_tensor_view &in = arg_tensor(c, 0), &out = c->outputs[0];
  if (!plugin::is_floating(in.dtype) || !same_placement(in, out)) return AXLE_DECLINED;
  const axle_tensor_view* indices = with_indices ? &c->outputs[1] : nullptr;
  if (indices && (indices->dtype != AXLE_DTYPE_INT64 || indices->device_index != out.device_index ||
                  plugin::views_overlap(*indices, out)))
    return AXLE_DECLINED;
  MaxPool2d p;
  if (!max_pool_geometry(c, 1, in, out, indices, &p)) return AXLE_DECLINED;
  if (plugin::numel(out) == 0) return AXLE_OK;
  DeviceGuard guard(out.device_index);
  if (axle_status s = guard.status(c)) return s;
  const int e = launch_max_pool2d(in.dtype, in.data, out.data, indices ? static_cast<int64_t*>(indices->data) : nullptr,
                                  p, c->stream);
  return check(static_cast<cudaError_t>(e), c->op_name, c);
}

// max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride,
// padding, dilation, ceil_mode, indices): pool.cu's gather after its check that
// each index lies in its output's window (one synchronization). Indices that do
// not (not what max_pool2d_with_indices returns) are the composite's: its
// scatter_add adds them where they point or raises its index error.
axle_status max_pool2d_with_indices_backward(void*, const axle_kernel_call* c) {
  const axle_tensor_view &gy = arg_tensor(c, 0), &self = arg_tensor(c, 1), &indices = arg_tensor(c, 7);
  const axle_tensor_view& gx = c->outputs[0];
  if (!plugin::is_floating(gx.dtype) || gy.dtype != gx.dtype || self.ndim != gx.ndim ||
      indices.dtype != AXLE_DTYPE_INT64 || gy.device_index != gx.device_index ||
      indices.device_index != gx.device_index || plugin::views_overlap(gy, gx) || plugin::views_overlap(indices, gx))
    return AXLE_DECLINED;
  for (int d = 0; d < gx.ndim; ++d)
    if (self.sizes[d] != gx.sizes[d]) return AXLE_DECLINED;
  MaxPool2d p;
  if (!max_pool_geometry(c, 2, gx, gy, &indices, &p)) return AXLE_DECLINED;
  if (plugin::numel(gx) == 0) return AXLE_OK;
  DeviceGuard guard(gx.device_index);
  if (axle_status s = guard.status(c)) return s;
  const auto* idx = static_cast<const int64_t*>(indices.data);
  if (plugin::numel(gy) > 0) {
    int bad = 0;
    Scratch flag;
    if (axle_status s = flag.allocate(gx.device_index, sizeof bad, c)) return s;
    const cudaStream_t stream = to_cuda(c->stream);
    int e = static_cast<int>(cudaMemsetAsync(flag.ptr, 0, sizeof bad, stream));
    if (e == 0) e = launch_max_pool2d_check_indices(idx, p, static_cast<int*>(flag.ptr), c->stream);
    if (e == 0) e = static_cast<int>(cudaMemcpyAsync(&bad, flag.ptr, sizeof bad, cudaMemcpyDeviceToHost, stream));
    if (e == 0) e = static_cast<int>(cudaStreamSynchronize(stream));
    if (e != 0) return check(static_cast<cudaError_t>(e), c->op_name, c);
    if (bad) return AXLE_DECLINED;
  }
  return check(static_cast<cudaError_t>(launch_max_pool2d_backward(gx.dtype, gy.data, idx, gx.data, p, c->stream)),
               c->op_name, c);
}

axle_status max_pool2d(void*, const axle_kernel_call* c) { return max_pool(c, false); }
axle_status max_pool2d_with_indices(void*, const axle_kernel_call* c) { return max_pool(c, true); }

const KernelEntry kKernels[] = {
    {"convolution.out", &convolution, AXLE_HERE},
    {"convolution_backward", &convolution_backward, AXLE_HERE},
    {"max_pool2d", &max_pool2d, AXLE_HERE},
    {"max_pool2d_with_indices", &max_pool2d_with_indices, AXLE_HERE},
    {"max_pool2d_with_indices_backward", &max_pool2d_with_indices_backward, AXLE_HERE},
    {"avg_pool2d", &avg_pool2d, AXLE_HERE},
};

}  // namespace

axle_status register_conv_pool(const axle_registrar* r) { return plugin::register_kernels(r, "cuda", kKernels); }

}  // namespace axle::cuda
