// The CPU plugin against raw oneDNN, in one process at one thread count (axle's
// cpu plugin and this program share libdnnl and libgomp, so both run with the
// same OpenMP threads). For each case the raw side is what a oneDNN expert
// would write: primitives created once, memory objects bound once, only
// execute() timed (plus the reorders the layout needs, where the row says so).
// axle's side is the public C++ API, allocating outputs as a user would.
//
// Usage: bench_cpu --threads N [--quick] [--only CASE_PREFIX]. Prints one JSON object per line:
// {"case", "threads", "unit", "axle", "raw"} with throughputs (higher is better).
#include <axle/axle.h>

#include "bench_util.h"

#include <omp.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

using namespace axle;
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

bool g_quick = false;
std::string g_only;  // --only PREFIX: run the cases whose name starts with it
bool wanted(const std::string& name) { return name.rfind(g_only, 0) == 0; }

std::pair<double, double> paired(const std::function<void()>& a, const std::function<void()>& b) {
  return bench::paired(a, b, g_quick ? 3 : 7);
}

int g_threads = 1;
void report(const std::string& name, const char* unit, double axle_value, double raw_value) {
  std::printf("{\"case\": \"%s\", \"threads\": %d, \"unit\": \"%s\", \"axle\": %.4g, \"raw\": %.4g}\n", name.c_str(),
              g_threads, unit, axle_value, raw_value);
  std::fflush(stdout);
}

dnnl::engine& eng() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}
dnnl::stream& strm() {
  static dnnl::stream s(eng());
  return s;
}

// Uniform [0, 1) inputs (the C++ API has no rand() yet: the op by name).
Tensor uniform(const IntList& sizes) { return call_op("rand", {Value(sizes)})[0].tensor(); }
Tensor rand_of(const IntList& sizes, DType d) { return uniform(sizes).to(d); }

void matmul_case(int64_t n, DType dtype) {
  const std::string name = "matmul " + std::string(dtype_name(dtype)) + " " + std::to_string(n);
  if (!wanted(name)) return;
  const Tensor a = rand_of({n, n}, dtype), b = rand_of({n, n}, dtype);
  const dt t = dtype == kBFloat16 ? dt::bf16 : dt::f32;
  const dnnl::memory::desc md({n, n}, t, tag::ab);
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(md, md, md), eng());
  const dnnl::matmul prim(pd);
  dnnl::memory ma(md, eng(), a.data_ptr()), mb(md, eng(), b.data_ptr()), mc(md, eng());
  const auto [axle_s, raw_s] =
      paired([&] { mm(a, b); },
             [&] {
               prim.execute(strm(), {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}});
               strm().wait();
             });
  const double flop = 2.0 * n * n * n;
  report(name, "GFLOP/s", flop / axle_s / 1e9, flop / raw_s / 1e9);
}

// conv2d N=8, 64->64, 56x56, 3x3, pad 1, float32.
void conv_case(bool channels_last) {
  const std::string name = std::string("conv2d ") + (channels_last ? "channels_last" : "NCHW");
  if (!wanted(name)) return;
  const int64_t n = 8, c = 64, h = 56, k = 3;
  Tensor x = uniform({n, c, h, h}), w = uniform({c, c, k, k}), bias = uniform({c});
  if (channels_last) x = x.contiguous(MemoryFormat::ChannelsLast);

  const dnnl::memory::dims xd = {n, c, h, h}, wd = {c, c, k, k}, bd = {c};
  const dnnl::memory::desc x_any(xd, dt::f32, tag::any), w_any(wd, dt::f32, tag::any);
  const dnnl::memory::desc x_user(xd, dt::f32, channels_last ? tag::nhwc : tag::nchw);
  const dnnl::memory::desc w_user(wd, dt::f32, tag::oihw), b_md(bd, dt::f32, tag::a);
  const dnnl::memory::desc& s_md = channels_last ? x_user : x_any;
  const dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, s_md,
                                          w_any, b_md, s_md, {1, 1}, {0, 0}, {1, 1}, {1, 1});
  const dnnl::convolution_forward::primitive_desc pd(d, eng());
  const dnnl::convolution_forward conv(pd);
  dnnl::memory xu(x_user, eng(), x.data_ptr()), wu(w_user, eng(), w.data_ptr()), bm(b_md, eng(), bias.data_ptr());
  dnnl::memory yu(x_user, eng());
  dnnl::memory xs(pd.src_desc(), eng()), ws(pd.weights_desc(), eng()), ys(pd.dst_desc(), eng());
  dnnl::reorder(wu, ws).execute(strm(), wu, ws);  // channels_last: weights prepared once (exec-only row)
  const dnnl::reorder r_in(xu, xs), r_w(wu, ws), r_out(ys, yu);
  const auto [axle_s, raw_s] = paired(
      [&] {
        conv2d(x, w, bias, IntList{1, 1}, IntList{1, 1});
      },
      [&] {
        if (channels_last) {
          conv.execute(strm(), {{DNNL_ARG_SRC, xu}, {DNNL_ARG_WEIGHTS, ws}, {DNNL_ARG_BIAS, bm}, {DNNL_ARG_DST, yu}});
        } else {  // the reorders a plain NCHW tensor needs, as a framework pays them
          r_in.execute(strm(), xu, xs);
          r_w.execute(strm(), wu, ws);
          conv.execute(strm(), {{DNNL_ARG_SRC, xs}, {DNNL_ARG_WEIGHTS, ws}, {DNNL_ARG_BIAS, bm}, {DNNL_ARG_DST, ys}});
          r_out.execute(strm(), ys, yu);
        }
        strm().wait();
      });
  const double flop = 2.0 * n * c * c * h * h * k * k;
  report(name, "GFLOP/s", flop / axle_s / 1e9, flop / raw_s / 1e9);
}

void softmax_layer_norm_cases() {
  if (!wanted("softmax") && !wanted("layer_norm")) return;
  const int64_t rows = 4096, cols = 1024;
  const Tensor x = uniform({rows, cols}), w = uniform({cols}), b = uniform({cols});
  const dnnl::memory::desc md({rows, cols}, dt::f32, tag::ab), pmd({cols}, dt::f32, tag::a);
  dnnl::memory mx(md, eng(), x.data_ptr()), my(md, eng()), mw(pmd, eng(), w.data_ptr()), mb(pmd, eng(), b.data_ptr());
  const double bytes = 2.0 * rows * cols * 4;

  const dnnl::softmax_v2_forward sm(dnnl::softmax_v2_forward::primitive_desc(
      dnnl::softmax_v2_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::softmax_accurate, md, md, 1),
      eng()));
  const auto [axle_sm, raw_sm] = paired([&] { softmax(x, 1); },
                                        [&] {
                                          sm.execute(strm(), {{DNNL_ARG_SRC, mx}, {DNNL_ARG_DST, my}});
                                          strm().wait();
                                        });
  report("softmax 4096x1024", "GB/s", bytes / axle_sm / 1e9, bytes / raw_sm / 1e9);

  const dnnl::layer_normalization_forward ln(dnnl::layer_normalization_forward::primitive_desc(
      dnnl::layer_normalization_forward::desc(
          dnnl::prop_kind::forward_inference, md, 1e-5f,
          dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift),
      eng()));
  const auto [axle_ln, raw_ln] =
      paired([&] { layer_norm(x, IntList{cols}, w, b); },
             [&] {
               ln.execute(strm(), {{DNNL_ARG_SRC, mx}, {DNNL_ARG_DST, my}, {DNNL_ARG_SCALE, mw}, {DNNL_ARG_SHIFT, mb}});
               strm().wait();
             });
  report("layer_norm 4096x1024", "GB/s", bytes / axle_ln / 1e9, bytes / raw_ln / 1e9);
}

// The memory ceiling: c[i] = a[i] + b[i], a plain loop on the same threads.
void add_cases() {
  if (!wanted("add")) return;
  const int64_t n = int64_t{16} << 20;
  const Tensor a = uniform({n}), b = uniform({n});
  Tensor out = empty({n});
  const float* pa = static_cast<const float*>(a.data_ptr());
  const float* pb = static_cast<const float*>(b.data_ptr());
  Tensor raw_out = empty({n});
  float* pc = static_cast<float*>(raw_out.data_ptr());
  auto triad = [&] {
#pragma omp parallel for simd schedule(static)
    for (int64_t i = 0; i < n; ++i) pc[i] = pa[i] + pb[i];
  };
  static const OpHandle add_op = find_op("add.Tensor");
  const double bytes = 3.0 * n * 4;
  const auto [out_s, raw1] = paired([&] { call_op_out(add_op, {a, b, 1}, {out}); }, triad);
  report("add 16M f32, out=", "GB/s", bytes / out_s / 1e9, bytes / raw1 / 1e9);
  const auto [alloc_s, raw2] = paired([&] { add(a, b); }, triad);
  report("add 16M f32, allocating", "GB/s", bytes / alloc_s / 1e9, bytes / raw2 / 1e9);
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
      g_threads = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--quick"))
      g_quick = true;
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc)
      g_only = argv[++i];
  }
  // The cpu plugin reads cpu.threads when it loads; raw oneDNN follows OpenMP.
  Config config;
  config.cpu_threads = g_threads;
  configure(config);
  omp_set_num_threads(g_threads);
  for (const PluginInfo& p : plugins())
    if (p.name == "cpu" && p.status == PluginStatus::Rejected) {
      std::fprintf(stderr, "bench_cpu: the cpu plugin was rejected: %s\n", p.reason.c_str());
      return 1;
    }
  add_cases();
  softmax_layer_norm_cases();
  for (DType d : {kFloat32, kBFloat16})
    for (int64_t n : {256, 1024, 2048}) matmul_case(n, d);
  conv_case(false);
  conv_case(true);
  return 0;
}
