// The CUDA plugin against the raw libraries, in one process on cuda:0 (issue
// 6's benchmark table; bench/cuda_report.py adds torch and the models):
//   matmul 4096 f32 / TF32 / bf16   axle::mm (allocating, as torch.mm) vs
//                                   cublasGemmEx on the same buffers
//   add 256M f32, out= / allocating vs a device-to-device cudaMemcpyAsync of
//                                   the same size (the bandwidth ceiling)
//   add 1 element                   launch-bound latency: axle::add vs a
//                                   4-byte cudaMemsetAsync (one enqueue)
// Every timed loop ends with cudaDeviceSynchronize inside the timing.
//
// Usage: bench_cuda [--quick] [--only CASE_PREFIX]. Prints one JSON object per
// line: {"case", "unit", "axle", "raw", "higher_is_better"}; without a usable
// GPU one line {"skipped": reason} and exit status 0.
#include <axle/axle.h>

#include "bench_util.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

using namespace axle;

bool g_quick = false;
std::string g_only;
bool wanted(const std::string& name) { return name.rfind(g_only, 0) == 0; }

void settle() {
  if (const cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) {
    std::fprintf(stderr, "bench_cuda: cudaDeviceSynchronize: %s\n", cudaGetErrorString(e));
    std::exit(1);
  }
}
std::pair<double, double> paired(const std::function<void()>& a, const std::function<void()>& b) {
  return bench::paired(a, b, g_quick ? 3 : 7, settle);
}
void report(const std::string& name, const char* unit, double axle_value, double raw_value, bool higher_is_better) {
  std::printf("{\"case\": \"%s\", \"unit\": \"%s\", \"axle\": %.5g, \"raw\": %.5g, \"higher_is_better\": %s}\n",
              name.c_str(), unit, axle_value, raw_value, higher_is_better ? "true" : "false");
  std::fflush(stdout);
}
void check_cublas(cublasStatus_t s, const char* what) {
  if (s == CUBLAS_STATUS_SUCCESS) return;
  std::fprintf(stderr, "bench_cuda: %s: %s\n", what, cublasGetStatusString(s));
  std::exit(1);
}

const Device kCuda("cuda:0");
Tensor uniform(const IntList& sizes, DType dtype = kFloat32) {
  return call_op("rand", {sizes, Value(), dtype, kCuda})[0].tensor();
}

// C = A B for n x n row-major matrices: cuBLAS is column-major, so it computes
// C^T = B^T A^T with the operands swapped (what the plugin does too).
void matmul_case(cublasHandle_t h, const char* label, DType dtype, const char* precision) {
  const std::string name = std::string("matmul 4096 ") + label;
  if (!wanted(name)) return;
  const int n = 4096;
  set_float32_matmul_precision(precision);
  const Tensor a = uniform({n, n}, dtype), b = uniform({n, n}, dtype);
  Tensor c = empty({n, n}, TensorOptions().dtype(dtype).device(kCuda));
  const cudaDataType_t t = dtype == kBFloat16 ? CUDA_R_16BF : CUDA_R_32F;
  const cublasComputeType_t compute =
      std::strcmp(precision, "highest") == 0 || dtype != kFloat32 ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_32F_FAST_TF32;
  const float one = 1.f, zero = 0.f;
  const auto [axle_s, raw_s] =
      paired([&] { (void)mm(a, b); },
             [&] {
               check_cublas(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b.data_ptr(), t, n, a.data_ptr(),
                                         t, n, &zero, c.data_ptr(), t, n, compute, CUBLAS_GEMM_DEFAULT),
                            "cublasGemmEx");
             });
  const double flop = 2.0 * n * n * n;
  report(name, "TFLOP/s", flop / axle_s / 1e12, flop / raw_s / 1e12, true);
  set_float32_matmul_precision("highest");
}

void add_cases() {
  if (wanted("add 256M")) {
    const int64_t n = int64_t{256} << 20;
    const Tensor a = uniform({n}), b = uniform({n});
    Tensor out = empty({n}, TensorOptions().device(kCuda));
    Tensor copy_dst = empty({n}, TensorOptions().device(kCuda));
    const size_t bytes = static_cast<size_t>(n) * 4;
    auto d2d = [&] {
      if (cudaMemcpyAsync(copy_dst.data_ptr(), a.data_ptr(), bytes, cudaMemcpyDeviceToDevice, nullptr) != cudaSuccess)
        std::exit(1);
    };
    static const OpHandle add_op = find_op("add.Tensor");
    // Bytes moved: add reads two and writes one tensor, the copy reads and writes one.
    const auto [out_s, copy1] = paired([&] { call_op_out(add_op, {a, b, 1}, {out}); }, d2d);
    report("add 256M f32, out=", "GB/s", 3.0 * bytes / out_s / 1e9, 2.0 * bytes / copy1 / 1e9, true);
    const auto [alloc_s, copy2] = paired([&] { (void)add(a, b); }, d2d);
    report("add 256M f32, allocating", "GB/s", 3.0 * bytes / alloc_s / 1e9, 2.0 * bytes / copy2 / 1e9, true);
  }
  if (wanted("add 1 element")) {
    const Tensor x = uniform({1}), y = uniform({1});
    Tensor scratch = empty({1}, TensorOptions().device(kCuda));
    const auto [axle_s, raw_s] = paired([&] { (void)add(x, y); },
                                        [&] {
                                          if (cudaMemsetAsync(scratch.data_ptr(), 0, 4, nullptr) != cudaSuccess)
                                            std::exit(1);
                                        });
    report("add 1 element (latency)", "us", axle_s * 1e6, raw_s * 1e6, false);
  }
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick"))
      g_quick = true;
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc)
      g_only = argv[++i];
  }
  std::string why = "the cuda plugin is not loaded";
  bool found = false;
  for (const DeviceInfo& d : devices())
    if (d.type == "cuda") {
      found = d.count > 0;
      why = d.note.empty() ? "zero CUDA devices" : d.note;
    }
  if (!found) {
    std::string escaped;
    for (char ch : why) escaped += ch == '"' || ch == '\\' ? std::string("\\") + ch : std::string(1, ch);
    std::printf("{\"skipped\": \"%s\"}\n", escaped.c_str());
    return 0;
  }
  cublasHandle_t h = nullptr;
  check_cublas(cublasCreate(&h), "cublasCreate");
  add_cases();
  matmul_case(h, "f32", kFloat32, "highest");
  matmul_case(h, "TF32", kFloat32, "high");
  matmul_case(h, "bf16", kBFloat16, "highest");
  cublasDestroy(h);
  return 0;
}
