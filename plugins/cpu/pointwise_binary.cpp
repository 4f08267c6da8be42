// add / sub / mul / div / maximum / minimum. These are bandwidth-bound: our own
// loop (vectorized by the compiler for AVX2 / AVX-512 through target_clones,
// OpenMP threads above kParallelElements) reaches the memory ceiling without a
// oneDNN execute's setup, so it serves float32 when the output is contiguous and
// each input is contiguous with the output's shape, a single element (a wrapped
// Python number or 0-d tensor, any dtype, or one element expanded: stride 0
// throughout), a contiguous block repeated along the leading dims (a bias row)
// or one value per row (dims of 1 at the end: softmax's backward). Other float32 / bfloat16 broadcasts go to
// oneDNN's binary primitive (it broadcasts its second source only; add and mul
// swap their operands). Everything else is declined.
#include "kernels.h"

#include <cmath>

namespace axle::cpu {
namespace {

using plugin::arg_tensor;

enum class Op { Add, Sub, Mul, Div, Max, Min };
constexpr int64_t kParallelElements = 1 << 16;

template <Op O>
inline float apply(float a, float b, float alpha) {
  if constexpr (O == Op::Add) return a + alpha * b;
  if constexpr (O == Op::Sub) return a - alpha * b;
  if constexpr (O == Op::Mul) return a * b;
  if constexpr (O == Op::Div) return a / b;
  if constexpr (O == Op::Max) return (a != a || b != b) ? a + b : (a > b ? a : b);
  if constexpr (O == Op::Min) return (a != a || b != b) ? a + b : (a < b ? a : b);
}

// out[i] = a[i * SA] op b[i * SB] for i < n; SA, SB in {0, 1}.
template <Op O, int SA, int SB>
__attribute__((target_clones("avx2", "default"))) void loop(float* __restrict out, const float* a, const float* b,
                                                            int64_t n, float alpha) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) out[i] = apply<O>(a[i * SA], b[i * SB], alpha);
}

template <Op O>
void run_block(float* out, const float* a, int sa, const float* b, int sb, int64_t n, float alpha) {
  if (sa && sb)
    loop<O, 1, 1>(out, a, b, n, alpha);
  else if (sa)
    loop<O, 1, 0>(out, a, b, n, alpha);
  else if (sb)
    loop<O, 0, 1>(out, a, b, n, alpha);
  else
    loop<O, 0, 0>(out, a, b, n, alpha);
}

// How an input maps onto the contiguous output.
struct Operand {
  enum Kind { Full, Scalar, Block, Row } kind = Full;
  const float* data = nullptr;
  float scalar = 0;
  int64_t block = 0;  // Block: elements repeated along the leading dims; Row: elements per row
};

bool classify(const axle_tensor_view& v, const axle_tensor_view& out, Operand* o) {
  const int64_t n = plugin::numel(v);
  if (n == 0) return false;
  if (one_element(v)) {
    o->kind = Operand::Scalar;
    o->scalar = plugin::load_as<float>(v.data, v.dtype);
    return true;
  }
  if (v.dtype != AXLE_DTYPE_FLOAT32 || !plugin::is_contiguous(v) || v.ndim > out.ndim) return false;
  // v's dims (right-aligned) must equal out's trailing dims, after leading 1s.
  int32_t first = 0;
  while (first < v.ndim && v.sizes[first] == 1) ++first;
  const int32_t lead = out.ndim - v.ndim;
  for (int32_t d = first; d < v.ndim; ++d)
    if (v.sizes[d] != out.sizes[d + lead]) return false;
  o->data = static_cast<const float*>(v.data);
  o->kind = n == plugin::numel(out) ? Operand::Full : Operand::Block;
  o->block = n;
  return true;
}

// A Row operand: v's dims equal out's leading ones and are 1 after them (a
// per-row value, as softmax's and the norms' backward multiply by): element i
// of the output uses v[i / block], block the product of out's trailing dims.
bool classify_row(const axle_tensor_view& v, const axle_tensor_view& out, Operand* o) {
  if (v.dtype != AXLE_DTYPE_FLOAT32 || !plugin::is_contiguous(v) || v.ndim > out.ndim) return false;
  const int32_t lead = out.ndim - v.ndim;
  int32_t last = v.ndim;  // v's dims [last, ndim) are 1
  while (last > 0 && v.sizes[last - 1] == 1) --last;
  if (last == v.ndim) return false;   // no trailing 1: Full or Block
  for (int32_t d = 0; d < lead; ++d)  // out's dims before v's: no repetition
    if (out.sizes[d] != 1) return false;
  for (int32_t d = 0; d < last; ++d)
    if (v.sizes[d] != out.sizes[d + lead]) return false;
  int64_t block = 1;
  for (int32_t d = last + lead; d < out.ndim; ++d) block *= out.sizes[d];
  o->kind = Operand::Row;
  o->data = static_cast<const float*>(v.data);
  o->block = block;
  return true;
}

template <Op O>
axle_status own(const axle_kernel_call* c, float alpha) {
  const axle_tensor_view& out = c->outputs[0];
  if (out.dtype != AXLE_DTYPE_FLOAT32 || !plugin::is_contiguous(out)) return AXLE_DECLINED;
  Operand a, b;
  const axle_tensor_view &x = arg_tensor(c, 0), &y = arg_tensor(c, 1);
  if ((!classify(x, out, &a) && !classify_row(x, out, &a)) || (!classify(y, out, &b) && !classify_row(y, out, &b)))
    return AXLE_DECLINED;
  const bool a_rows = a.kind == Operand::Block || a.kind == Operand::Row;
  const bool b_rows = b.kind == Operand::Block || b.kind == Operand::Row;
  if (a_rows && b_rows && a.block != b.block) return AXLE_DECLINED;
  const int64_t n = plugin::numel(out);
  // Rows of `row` elements: a Block operand restarts every row, a Row operand
  // holds one value per row.
  const int64_t row = a_rows ? a.block : b_rows ? b.block : n;
  if (row == 0 || n == 0) return AXLE_OK;
  float* o = static_cast<float*>(out.data);
  auto at = [](const Operand& v, int64_t i, int64_t in_row, int64_t row_index) -> const float* {
    switch (v.kind) {
      case Operand::Scalar: return &v.scalar;
      case Operand::Full: return v.data + i;
      case Operand::Block: return v.data + in_row;
      case Operand::Row: return v.data + row_index;
    }
    return nullptr;
  };
  const int sa = a.kind == Operand::Full || a.kind == Operand::Block;
  const int sb = b.kind == Operand::Full || b.kind == Operand::Block;
  auto part = [&](int64_t begin, int64_t end) {  // [begin, end) of the output, any alignment
    for (int64_t i = begin; i < end;) {
      const int64_t in_row = i % row, row_index = i / row, len = std::min(end - i, row - in_row);
      run_block<O>(o + i, at(a, i, in_row, row_index), sa, at(b, i, in_row, row_index), sb, len, alpha);
      i += len;
    }
  };
  parallel_ranges(n, n >= kParallelElements ? thread_count() : 1, 16, part);  // 64-byte aligned splits
  return AXLE_OK;
}

// Strided rows: the output and each full-size float32 input laid out as rows
// of a contiguous last dim at any row strides (a slice of a bigger tensor,
// what adding a view's gradient into its part of the base's writes), inputs
// of one element as scalars. One contiguous loop per row.
template <Op O>
axle_status strided_rows(const axle_kernel_call* c, float alpha) {
  const axle_tensor_view& out = c->outputs[0];
  const axle_tensor_view* in[2] = {&arg_tensor(c, 0), &arg_tensor(c, 1)};
  if (out.dtype != AXLE_DTYPE_FLOAT32 || out.ndim < 2 || out.ndim > 8 || out.strides[out.ndim - 1] != 1)
    return AXLE_DECLINED;
  const int64_t n = plugin::numel(out);
  if (n == 0) return AXLE_DECLINED;
  Operand op[2];
  const int64_t* strides[2] = {nullptr, nullptr};
  for (int k = 0; k < 2; ++k) {
    const axle_tensor_view& v = *in[k];
    if (one_element(v)) {
      op[k].kind = Operand::Scalar;
      op[k].scalar = plugin::load_as<float>(v.data, v.dtype);
      continue;
    }
    if (v.dtype != AXLE_DTYPE_FLOAT32 || v.ndim != out.ndim || v.strides[v.ndim - 1] != 1) return AXLE_DECLINED;
    for (int32_t d = 0; d < out.ndim; ++d)
      if (v.sizes[d] != out.sizes[d]) return AXLE_DECLINED;
    // An input overlapping the output must be the output itself (in place).
    if (v.data != out.data && plugin::views_overlap(v, out)) return AXLE_DECLINED;
    op[k].data = static_cast<const float*>(v.data);
    strides[k] = v.strides;
  }
  const int32_t outer = out.ndim - 1;
  const int64_t row = out.sizes[outer], rows = n / row;
  int64_t index[8] = {};
  float* o = static_cast<float*>(out.data);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t off_o = 0, off[2] = {0, 0};
    for (int32_t d = 0; d < outer; ++d) {
      off_o += index[d] * out.strides[d];
      for (int k = 0; k < 2; ++k)
        if (strides[k]) off[k] += index[d] * strides[k][d];
    }
    const float* pa = op[0].kind == Operand::Scalar ? &op[0].scalar : op[0].data + off[0];
    const float* pb = op[1].kind == Operand::Scalar ? &op[1].scalar : op[1].data + off[1];
    run_block<O>(o + off_o, pa, op[0].kind != Operand::Scalar, pb, op[1].kind != Operand::Scalar, row, alpha);
    for (int32_t d = outer - 1; d >= 0 && ++index[d] == out.sizes[d]; --d) index[d] = 0;
  }
  return AXLE_OK;
}

// oneDNN binary: dst = src0 op src1, src1 broadcast; src0 has dst's shape.
axle_status onednn(const axle_kernel_call* c, Op op, bool commutative) {
  Shape a = Shape::of(arg_tensor(c, 0)), b = Shape::of(arg_tensor(c, 1)), dst = Shape::of(c->outputs[0]);
  if (a.dtype != dst.dtype || b.dtype != dst.dtype || dst.numel() < dnnl_min_elements() || dst.numel() == 0 ||
      !is_f32_or_bf16(dst.dtype) || dst.has_zero_stride())
    return AXLE_DECLINED;
  a.pad_front(dst.ndim()).unexpand();
  b.pad_front(dst.ndim()).unexpand();
  if (a.dims != dst.dims) {
    if (!commutative || b.dims != dst.dims) return AXLE_DECLINED;
    std::swap(a, b);
  }
  dnnl::algorithm alg = dnnl::algorithm::binary_add;
  switch (op) {
    case Op::Add: alg = dnnl::algorithm::binary_add; break;
    case Op::Sub: alg = dnnl::algorithm::binary_sub; break;
    case Op::Mul: alg = dnnl::algorithm::binary_mul; break;
    case Op::Div: alg = dnnl::algorithm::binary_div; break;
    case Op::Max: alg = dnnl::algorithm::binary_max; break;
    case Op::Min: alg = dnnl::algorithm::binary_min; break;
  }
  Key key("binary");
  key.add(static_cast<int64_t>(alg)).add(a).add(b).add(dst);
  auto p = cache().get(key.str(), [&]() -> std::shared_ptr<Primitive> {
    dnnl::memory::desc amd, bmd, dmd;
    if (!describe(a, &amd) || !describe(b, &bmd) || !describe(dst, &dmd)) return declined("dtype or rank");
    const dnnl::binary::desc d(alg, amd, bmd, dmd);
    const dnnl::binary::primitive_desc pd(d, default_attr(), engine());
    return make_primitive<dnnl::binary::primitive_desc, dnnl::binary>(
        pd, {DNNL_ARG_SRC_0, DNNL_ARG_SRC_1, DNNL_ARG_DST}, {amd, bmd, dmd});
  });
  if (!p->declined.empty()) return plugin::decline(c, p->declined);
  execute(*p, {a.data, b.data, dst.data});
  return AXLE_OK;
}

// One output element from two single elements (a launch-bound call: scalars,
// 0-d tensors): computed directly, before any thread or blocking setup.
template <Op O>
axle_status single(const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  const axle_tensor_view& x = arg_tensor(c, 0);
  const axle_tensor_view& y = arg_tensor(c, 1);
  if (out.dtype != AXLE_DTYPE_FLOAT32 || plugin::numel(out) != 1 || plugin::numel(x) != 1 || plugin::numel(y) != 1)
    return AXLE_DECLINED;
  float alpha = 1.f;
  if constexpr (O == Op::Add || O == Op::Sub) alpha = static_cast<float>(plugin::arg_double(c, 2));
  *static_cast<float*>(out.data) =
      apply<O>(plugin::load_as<float>(x.data, x.dtype), plugin::load_as<float>(y.data, y.dtype), alpha);
  return AXLE_OK;
}

// NaN handling of oneDNN's max/min is unspecified: only our loop serves them.
template <Op O>
axle_status binary(void*, const axle_kernel_call* c) {
  if (single<O>(c) == AXLE_OK) return AXLE_OK;
  return guarded(c, [&]() -> axle_status {
    float alpha = 1.f;
    if constexpr (O == Op::Add || O == Op::Sub) alpha = static_cast<float>(plugin::arg_double(c, 2));
    axle_status s = own<O>(c, alpha);
    if (s == AXLE_DECLINED) s = strided_rows<O>(c, alpha);
    if (s != AXLE_DECLINED || alpha != 1.f || O == Op::Max || O == Op::Min) return s;
    return onednn(c, O, O == Op::Add || O == Op::Mul);
  });
}

const KernelEntry kKernels[] = {
    {"add.Tensor", &binary<Op::Add>, AXLE_HERE}, {"sub.Tensor", &binary<Op::Sub>, AXLE_HERE},
    {"mul.Tensor", &binary<Op::Mul>, AXLE_HERE}, {"div.Tensor", &binary<Op::Div>, AXLE_HERE},
    {"maximum", &binary<Op::Max>, AXLE_HERE},    {"minimum", &binary<Op::Min>, AXLE_HERE},
};

}  // namespace

axle_status register_pointwise_binary(const axle_registrar* r) { return plugin::register_kernels(r, "cpu", kKernels); }

}  // namespace axle::cpu
