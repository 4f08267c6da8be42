// The matmul family on dnnl::matmul: mm, bmm, matmul (1-D and batched forms,
// batch broadcasting), addmm and baddbmm (self fused as the bias when beta is 1,
// alpha as the output scale). float32 and bfloat16; float16 is declined (oneDNN
// 2.6 has no float16 compute on these CPUs). Zero-size products, an empty K, and
// operand layouts oneDNN would run on its reference implementation go to the
// next plugin.
#include "kernels.h"

#include <cstring>

namespace axle::cpu {
namespace {

using plugin::arg_double;
using plugin::arg_tensor;

// Matrix dims (the last two) must be really strided: an expanded row or column
// cannot be described to oneDNN.
bool matrix_ok(const Shape& s) {
  for (int64_t d = s.ndim() - 2; d < s.ndim(); ++d)
    if (s.dims[d] > 1 && s.strides[d] == 0) return false;
  return true;
}

// A dense row-major copy of `s` in the thread's workspace `slot`: an operand
// whose matrix dims are broadcast (stride 0, as sum()'s gradient is), which
// oneDNN's matmul cannot describe (copied element by element, for_each_element).
Shape dense_copy(const Shape& s, int slot) {
  const size_t esize = plugin::dtype_size(s.dtype);
  Shape d = s;
  d.data = workspace(slot, static_cast<size_t>(s.numel()) * esize);
  int64_t step = 1;
  for (int64_t i = s.ndim() - 1; i >= 0; --i) d.strides[i] = step, step *= s.dims[i];
  auto view = [](const Shape& x) {
    axle_tensor_view v{};
    v.struct_size = sizeof v;
    v.data = x.data;
    v.dtype = x.dtype;
    v.ndim = static_cast<int32_t>(x.ndim());
    v.sizes = x.dims.data();
    v.strides = x.strides.data();
    return v;
  };
  const axle_tensor_view to = view(d), from = view(s);
  plugin::for_each_element<2>(to.ndim, to.sizes, {&to, &from}, [&](char** p) { std::memcpy(p[0], p[1], esize); });
  return d;
}

// dst = alpha * (a @ b) [+ bias]; a, b, dst (and bias) of equal rank >= 2.
axle_status run(const axle_kernel_call* c, Shape a, Shape b, const Shape* bias_in, Shape dst, double alpha) {
  if (!is_f32_or_bf16(a.dtype) || a.dtype != b.dtype || dst.dtype != a.dtype)
    return plugin::decline(c, "oneDNN matmul here: float32 or bfloat16 operands of one dtype only");
  const int64_t k = a.dims.back();
  if (dst.numel() == 0 || k == 0 || !matrix_ok(dst) || dst.has_zero_stride())
    return plugin::decline(c, "empty, or a layout oneDNN matmul cannot describe (strides, broadcast output)");
  // Broadcast matrices are copied dense (slots 4 and 5: the reorders use 1-3).
  if (!matrix_ok(a)) a = dense_copy(a, 4);
  if (!matrix_ok(b)) b = dense_copy(b, 5);
  a.unexpand();
  b.unexpand();
  Shape bias;
  if (bias_in) {
    bias = *bias_in;
    bias.pad_front(dst.ndim());
    bias.unexpand();
  }
  // A few rows against a K-contiguous weight: our dot products beat oneDNN's
  // per-call repacking; a small K against a wide weight: oneDNN's sgemm beats
  // its matmul (blas_gemv.cpp).
  const Shape* bias_ptr = bias_in ? &bias : nullptr;
  if (small_m_product(a, b, bias_ptr, dst, alpha) || row_major_small_m_product(a, b, bias_ptr, dst, alpha) ||
      outer_product(a, b, bias_ptr, dst, alpha) || small_k_linear(a, b, bias_ptr, dst, alpha) ||
      small_k_sgemm(a, b, bias_ptr, dst, alpha))
    return AXLE_OK;
  // oneDNN's matmul reads a bias as dense whatever its strides (a stepped
  // slice gave a wrong sum): such a bias goes to the next plugin.
  if (bias_in && !bias.is_dense()) return plugin::decline(c, "a bias whose elements are not dense");
  Key key("matmul");
  key.add(a).add(b).add(dst).add(alpha).add(static_cast<int64_t>(bias_in != nullptr));
  if (bias_in) key.add(bias);
  auto p = cache().get(key.str(), [&]() -> std::shared_ptr<Primitive> {
    dnnl::memory::desc amd, bmd, dmd, biasmd;
    if (!describe(a, &amd) || !describe(b, &bmd) || !describe(dst, &dmd) || (bias_in && !describe(bias, &biasmd)))
      return declined("dtype or rank oneDNN lacks");
    dnnl::primitive_attr attr = default_attr();
    if (alpha != 1.0) attr.set_output_scales(0, {static_cast<float>(alpha)});
    const dnnl::matmul::desc d =
        bias_in ? dnnl::matmul::desc(amd, bmd, biasmd, dmd) : dnnl::matmul::desc(amd, bmd, dmd);
    const dnnl::matmul::primitive_desc pd(d, attr, engine());
    std::vector<int> ids = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST};
    std::vector<dnnl::memory::desc> mds = {amd, bmd, dmd};
    if (bias_in) {
      ids.push_back(DNNL_ARG_BIAS);
      mds.push_back(biasmd);
    }
    return make_primitive<dnnl::matmul::primitive_desc, dnnl::matmul>(pd, ids, mds);
  });
  if (!p->declined.empty()) return plugin::decline(c, p->declined);
  std::vector<void*> ptrs = {a.data, b.data, dst.data};
  if (bias_in) ptrs.push_back(bias.data);
  execute(*p, ptrs);
  return AXLE_OK;
}

axle_status mm(void*, const axle_kernel_call* c) {
  return guarded(c, [&]() -> axle_status {
    return run(c, Shape::of(arg_tensor(c, 0)), Shape::of(arg_tensor(c, 1)), nullptr, Shape::of(c->outputs[0]), 1.0);
  });
}

// matmul: 1-D operands gain a unit dim (and the output the matching one), batch
// dims are right-aligned and broadcast.
axle_status matmul(void*, const axle_kernel_call* c) {
  return guarded(c, [&]() -> axle_status {
    Shape a = Shape::of(arg_tensor(c, 0)), b = Shape::of(arg_tensor(c, 1)), dst = Shape::of(c->outputs[0]);
    const bool a_vec = a.ndim() == 1, b_vec = b.ndim() == 1;
    if (a.ndim() == 0 || b.ndim() == 0) return AXLE_DECLINED;
    if (a_vec) {
      a.insert_unit(0);
      dst.insert_unit(dst.ndim() - (b_vec ? 0 : 1));
    }
    if (b_vec) {
      b.insert_unit(1);
      dst.insert_unit(dst.ndim());
    }
    const int64_t n = std::max({a.ndim(), b.ndim(), dst.ndim()});
    a.pad_front(n);
    b.pad_front(n);
    dst.pad_front(n);
    return run(c, a, b, nullptr, dst, 1.0);
  });
}

// addmm / baddbmm: beta * self + alpha * (a @ b). beta 0 ignores self (as torch,
// NaNs in self included); beta 1 fuses self as oneDNN's bias when alpha is 1.
axle_status addmm(void*, const axle_kernel_call* c) {
  return guarded(c, [&]() -> axle_status {
    const double beta = arg_double(c, 3), alpha = arg_double(c, 4);
    Shape self = Shape::of(arg_tensor(c, 0)), dst = Shape::of(c->outputs[0]);
    if (self.dtype != dst.dtype) return AXLE_DECLINED;
    if (beta == 0.0) return run(c, Shape::of(arg_tensor(c, 1)), Shape::of(arg_tensor(c, 2)), nullptr, dst, alpha);
    if (beta != 1.0 || alpha != 1.0) return AXLE_DECLINED;
    return run(c, Shape::of(arg_tensor(c, 1)), Shape::of(arg_tensor(c, 2)), &self, dst, 1.0);
  });
}

// A contiguous float32 matrix [rows, cols] at data.
Shape matrix(void* data, int64_t rows, int64_t cols) {
  Shape s;
  s.dims = {rows, cols};
  s.strides = {cols, 1};
  s.data = data;
  return s;
}

// linear_backward(self, grad_output, weight, output_mask) -> (grad_input,
// grad_weight, grad_bias): float32, self and grad_output contiguous (their
// leading dims flattened into rows). grad_input = g @ W on the matmul path;
// with 16 <= K <= 64, 512 outputs or more and up to 2048 rows, grad_weight and
// grad_bias from one pass over g (small_k_weight_grad), else grad_weight =
// g^T @ x on the matmul path and grad_bias from sum_over_rows. The outputs
// output_mask leaves out arrive unallocated and stay so.
axle_status linear_backward(void*, const axle_kernel_call* c) {
  return guarded(c, [&]() -> axle_status {
    const axle_tensor_view &xv = arg_tensor(c, 0), &gv = arg_tensor(c, 1);
    const Shape w = Shape::of(arg_tensor(c, 2));
    const axle_tensor_view &gx = c->outputs[0], &gw = c->outputs[1], &gb = c->outputs[2];
    if (xv.dtype != AXLE_DTYPE_FLOAT32 || w.ndim() != 2) return plugin::decline(c, "float32 only");
    if (!plugin::is_contiguous(xv) || !plugin::is_contiguous(gv))
      return plugin::decline(c, "self or grad_output not contiguous");
    for (const axle_tensor_view* o : {&gx, &gw, &gb})
      if (o->data && !plugin::is_contiguous(*o)) return plugin::decline(c, "a strided output");
    const int64_t n = w.dims[0], k = w.dims[1], m = k > 0 ? plugin::numel(xv) / k : 0;
    if (m == 0 || n == 0 || k == 0) return plugin::decline(c, "an empty product");
    const Shape g = matrix(gv.data, m, n), x = matrix(xv.data, m, k);
    if (gx.data)
      if (axle_status s = run(c, g, w, nullptr, matrix(gx.data, m, k), 1.0)) return s;
    auto* pg = static_cast<const float*>(gv.data);
    // (Below ~512 outputs the matmul path and add_rows are as fast: 96 outputs,
    // 700 rows, K = 32: 39 vs 43 us; below K = 16 most of the tiles' 32 lanes
    // idle, and from ~2K rows on the matmul path won: 20000 rows, K = 32, 512
    // outputs: 11.6 vs 14.3 ms.)
    if (gw.data && k >= 16 && k <= kSmallK && n >= 512 && m <= 2048) {
      small_k_weight_grad(pg, static_cast<const float*>(xv.data), m, n, k, static_cast<float*>(gw.data),
                          static_cast<float*>(gb.data));
      return AXLE_OK;
    }
    if (gw.data) {
      Shape gt = g;
      std::swap(gt.dims[0], gt.dims[1]);
      std::swap(gt.strides[0], gt.strides[1]);
      if (axle_status s = run(c, gt, x, nullptr, matrix(gw.data, n, k), 1.0)) return s;
    }
    if (gb.data) sum_over_rows(pg, m, n, static_cast<float*>(gb.data));
    return AXLE_OK;
  });
}

const KernelEntry kKernels[] = {
    {"mm", &mm, AXLE_HERE},       {"bmm", &mm, AXLE_HERE},        {"matmul", &matmul, AXLE_HERE},
    {"addmm", &addmm, AXLE_HERE}, {"baddbmm", &addmm, AXLE_HERE}, {"linear_backward", &linear_backward, AXLE_HERE},
};

}  // namespace

axle_status register_blas(const axle_registrar* r) { return plugin::register_kernels(r, "cpu", kKernels); }

}  // namespace axle::cpu
