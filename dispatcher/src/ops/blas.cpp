// BLAS-like products with torch's strict shape and dtype rules: matmul with
// every torch.matmul case (dot, matrix-vector, vector-matrix, matrix-matrix, and
// batched with broadcast batch dimensions), mm, bmm, addmm, baddbmm, dot
// (kernels), and the composites outer (mul of a column and a row) and linear
// (addmm / matmul + add_, the same paths as torch 1.13).
#include "../derivatives/derivatives.h"
#include "shape_util.h"

#include <axle/ops.h>

namespace axle::shape {
namespace {

void check_same_dtype(const char* op, const Tensor& a, const Tensor& b) {
  AXLE_CHECK(a.dtype() == b.dtype(), DTypeError, op, ": expected scalar type ", torch_type_name(a.dtype()),
             " but found ", torch_type_name(b.dtype()));
}

// torch dispatches on the dtype only when there is work: an empty result (or, for
// mm / bmm, an empty inner dim) is produced for any dtype.
void check_not_bool(const char* op, const char* kernel, DType d, bool has_work = true) {
  AXLE_CHECK(d != kBool || !has_work, DTypeError, op, ": \"", kernel, "\" not implemented for 'Bool'");
}

bool nonempty(const IntList& sizes) { return checked_numel(sizes) > 0; }

// torch's expand rules for the `self` operand of addmm / baddbmm.
void check_expand(const char* op, const IntList& from, const IntList& to) {
  AXLE_CHECK(from.size() <= to.size(), ShapeError, op, ": expand(", str(from), ", size=", str(to),
             "): the number of sizes provided (", to.size(),
             ") must be greater or equal to the number of dimensions in the tensor (", from.size(), ")");
  const size_t lead = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i)
    AXLE_CHECK(from[i] == 1 || from[i] == to[lead + i], ShapeError, op, ": The expanded size of the tensor (",
               to[lead + i], ") must match the existing size (", from[i], ") at non-singleton dimension ", lead + i,
               ".  Target sizes: ", str(to), ".  Tensor sizes: ", str(from));
}

void check_mm_shapes(const char* op, const Tensor& a, const Tensor& b) {
  AXLE_CHECK(a.sizes()[1] == b.sizes()[0], ShapeError, op, ": mat1 and mat2 shapes cannot be multiplied (",
             a.sizes()[0], "x", a.sizes()[1], " and ", b.sizes()[0], "x", b.sizes()[1], ")");
}

void mm_shape(ShapeContext& c) {
  const Tensor& a = c.arg(0).tensor();
  const Tensor& b = c.arg(1).tensor();
  AXLE_CHECK(a.dim() == 2, ShapeError, c.op, ": self must be a matrix");
  AXLE_CHECK(b.dim() == 2, ShapeError, c.op, ": mat2 must be a matrix");
  check_mm_shapes(c.op, a, b);
  check_same_dtype(c.op, a, b);
  const IntList out = {a.sizes()[0], b.sizes()[1]};
  check_not_bool(c.op, "addmm_impl_cpu_", a.dtype(), nonempty(out) && a.sizes()[1] > 0);
  c.outputs = {{out, a.dtype()}};
}

void addmm_shape(ShapeContext& c) {
  const Tensor& self = c.arg(0).tensor();
  const Tensor& a = c.arg(1).tensor();
  const Tensor& b = c.arg(2).tensor();
  AXLE_CHECK(self.dtype() == b.dtype(), DTypeError, c.op, ": self and mat2 must have the same dtype");
  AXLE_CHECK(a.dtype() == b.dtype(), DTypeError, c.op, ": mat1 and mat2 must have the same dtype");
  AXLE_CHECK(a.dim() == 2, ShapeError, c.op, ": mat1 must be a matrix, got ", a.dim(), "-D tensor");
  AXLE_CHECK(b.dim() == 2, ShapeError, c.op, ": mat2 must be a matrix, got ", b.dim(), "-D tensor");
  check_mm_shapes(c.op, a, b);
  const IntList out = {a.sizes()[0], b.sizes()[1]};
  check_expand(c.op, self.sizes(), out);
  check_not_bool(c.op, "addmm_impl_cpu_", a.dtype(), nonempty(out));
  c.outputs = {{out, a.dtype()}};
}

// batch1 / batch2 checks shared by bmm and baddbmm (torch's common_checks_baddbmm_bmm).
IntList bmm_common(ShapeContext& c, const Tensor& b1, const Tensor& b2, const char* kernel, bool add) {
  AXLE_CHECK(b1.dim() == 3, ShapeError, c.op, ": batch1 must be a 3D tensor");
  AXLE_CHECK(b2.dim() == 3, ShapeError, c.op, ": batch2 must be a 3D tensor");
  const int64_t bs = b1.sizes()[0], k = b1.sizes()[2];
  AXLE_CHECK(b2.sizes()[0] == bs && b2.sizes()[1] == k, ShapeError, c.op,
             ": Expected size for first two dimensions of batch2 tensor to be: [", bs, ", ", k, "] but got: [",
             b2.sizes()[0], ", ", b2.sizes()[1], "].");
  check_same_dtype(c.op, b1, b2);
  const IntList out = {bs, b1.sizes()[1], b2.sizes()[2]};
  check_not_bool(c.op, kernel, b1.dtype(), nonempty(out) && (add || k > 0));
  return out;
}

void bmm_shape(ShapeContext& c) {
  const Tensor& b1 = c.arg(0).tensor();
  c.outputs = {{bmm_common(c, b1, c.arg(1).tensor(), "bmm", false), b1.dtype()}};
}

// baddbmm: self (any dtype, converted) broadcasts to [b, n, m]; the result has batch1's dtype.
void baddbmm_shape(ShapeContext& c) {
  const Tensor& self = c.arg(0).tensor();
  const Tensor& b1 = c.arg(1).tensor();
  const Tensor& b2 = c.arg(2).tensor();
  // torch reads batch1.size(0), batch1.size(1), batch2.size(2) first.
  auto size_at = [&](const Tensor& t, int64_t d) {
    AXLE_CHECK(t.dim() > 0, IndexError, c.op, ": dimension specified as ", d, " but tensor has no dimensions");
    return t.sizes()[wrap_dim(d, t.dim(), c.op)];
  };
  const IntList target = {size_at(b1, 0), size_at(b1, 1), size_at(b2, 2)};
  check_expand(c.op, self.sizes(), target);
  c.outputs = {{bmm_common(c, b1, b2, "baddbmm", true), b1.dtype()}};
}

void dot_shape(ShapeContext& c) {
  const Tensor& a = c.arg(0).tensor();
  const Tensor& b = c.arg(1).tensor();
  AXLE_CHECK(a.dim() == 1 && b.dim() == 1, ShapeError, c.op, ": 1D tensors expected, but got ", a.dim(), "D and ",
             b.dim(), "D tensors");
  AXLE_CHECK(a.dtype() == b.dtype(), DTypeError, c.op, ": dot : expected both vectors to have same dtype, but found ",
             torch_type_name(a.dtype()), " and ", torch_type_name(b.dtype()));
  AXLE_CHECK(a.sizes()[0] == b.sizes()[0], ShapeError, c.op, ": inconsistent tensor size, expected tensor [",
             a.sizes()[0], "] and src [", b.sizes()[0], "] to have the same number of elements, but got ", a.sizes()[0],
             " and ", b.sizes()[0], " elements respectively");
  check_not_bool(c.op, "dot", a.dtype());
  c.outputs = {{{}, a.dtype()}};
}

// outer: self.reshape(n, 1) * vec2 (broadcast, promoted as mul), as torch.
Stack outer_composite(const Stack& a) {
  const Tensor& self = a[0].tensor();
  const Tensor& vec2 = a[1].tensor();
  AXLE_CHECK(self.dim() == 1, ShapeError, "outer: Expected 1-D argument self, but got ", self.dim(), "-D");
  AXLE_CHECK(vec2.dim() == 1, ShapeError, "outer: Expected 1-D argument vec2, but got ", vec2.dim(), "-D");
  return call_op("mul.Tensor", {self.view({self.sizes()[0], 1}), vec2});
}

// linear: the paths of torch 1.13's at::linear (they differ in how bias broadcasts).
Stack linear_composite(const Stack& a) {
  const Tensor& input = a[0].tensor();
  const Tensor& weight = a[1].tensor();
  const bool has_bias = !a[2].is_none() && a[2].tensor().defined();
  if (input.dim() == 2 && has_bias) return call_op("addmm", {a[2], input, weight.t()});
  if (has_bias && input.dim() == 3 && input.is_contiguous()) {
    const IntList& s = input.sizes();
    Tensor r = call_op("addmm", {a[2], input.view({s[0] * s[1], s[2]}), weight.t()})[0].tensor();
    return {r.view({s[0], s[1], r.sizes()[1]})};
  }
  Tensor out = call_op("matmul", {input, weight.t()})[0].tensor();
  if (has_bias) call_op("add_.Tensor", {out, a[2], 1});
  return {out};
}

// linear_backward(self, grad_output, weight, output_mask): linear's gradients
// (input, weight, bias) where output_mask (0/1 each; torch's bool[3]) asks,
// else undefined. aten's schema (its kernel is mkldnn's); the bias gradient is
// grad_output summed over every dim but the last.
void check_linear_backward(const std::string& op, const Tensor& x, const Tensor& g, const Tensor& w) {
  AXLE_CHECK(w.dim() == 2, ShapeError, op, ": expected a 2-D weight, got ", str(w.sizes()));
  AXLE_CHECK(x.dim() >= 1 && x.sizes().back() == w.sizes()[1], ShapeError, op, ": input ", str(x.sizes()),
             " does not end in weight ", str(w.sizes()), "'s in_features ", w.sizes()[1]);
  IntList want(x.sizes().begin(), x.sizes().end() - 1);
  want.push_back(w.sizes()[0]);
  AXLE_CHECK(g.sizes() == want, ShapeError, op, ": expected grad_output of size ", str(want), ", got ", str(g.sizes()));
  AXLE_CHECK(is_floating_point(x.dtype()) && g.dtype() == x.dtype() && w.dtype() == x.dtype(), DTypeError, op,
             ": expected floating input, grad_output and weight of one dtype, got ", dtype_name(x.dtype()), ", ",
             dtype_name(g.dtype()), " and ", dtype_name(w.dtype()));
}

void linear_backward_shape(ShapeContext& c) {
  const Tensor& x = c.arg(0).tensor();
  const Tensor& w = c.arg(2).tensor();
  check_linear_backward(c.op, x, c.arg(1).tensor(), w);
  c.outputs = {{x.sizes(), x.dtype()}, {w.sizes(), w.dtype()}, {{w.sizes()[0]}, w.dtype()}};
  // An output the mask leaves out is not allocated (a kernel leaves it undefined, as the composite).
  for (size_t i = 0; i < 3; ++i)
    if (!output_wanted(c.arg(3), i)) c.outputs[i].data_dependent = true;
}

Stack linear_backward_composite(const Stack& a) {
  const Tensor& x = a[0].tensor();
  const Tensor& g = a[1].tensor();
  const Tensor& w = a[2].tensor();
  check_linear_backward("linear_backward", x, g, w);
  const int64_t n = w.sizes()[0], k = w.sizes()[1];
  int64_t rows = 1;  // the leading dims (from the sizes: n or k may be 0)
  for (size_t d = 0; d + 1 < x.sizes().size(); ++d) rows *= x.sizes()[d];
  const Tensor g2 = reshape(g, {rows, n});
  Tensor gx, gw, gb;
  if (output_wanted(a[3], 0)) gx = matmul(g, w);
  if (output_wanted(a[3], 1)) gw = mm(t(g2), reshape(x, {rows, k}));
  if (output_wanted(a[3], 2)) gb = sum(g2, IntList{0});
  return {gx, gw, gb};
}

std::string mat_str(const IntList& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "x" : "") + std::to_string(s[i]);
  return out;
}

void matmul_shape(ShapeContext& c) {
  const Tensor& a = c.arg(0).tensor();
  const Tensor& b = c.arg(1).tensor();
  const int64_t da = a.dim(), db = b.dim();
  AXLE_CHECK(da >= 1 && db >= 1, ShapeError, c.op, ": both arguments to matmul need to be at least 1D, but they are ",
             da, "D and ", db, "D");
  AXLE_CHECK(a.dtype() == b.dtype(), DTypeError, c.op, ": expected both arguments to have the same dtype, but got ",
             dtype_name(a.dtype()), " and ", dtype_name(b.dtype()));
  AXLE_CHECK(a.dtype() != kBool, DTypeError, c.op, ": bool tensors are not supported by matmul");
  if (da == 1 && db == 1) {
    AXLE_CHECK(a.sizes()[0] == b.sizes()[0], ShapeError, c.op, ": inconsistent tensor size, expected tensor [",
               a.sizes()[0], "] and src [", b.sizes()[0], "] to have the same number of elements, but got ",
               a.sizes()[0], " and ", b.sizes()[0], " elements respectively");
    c.outputs = {{{}, a.dtype()}};
    return;
  }
  const int64_t k_a = a.sizes()[da - 1];
  const int64_t k_b = db >= 2 ? b.sizes()[db - 2] : b.sizes()[0];
  AXLE_CHECK(k_a == k_b, ShapeError, c.op, ": mat1 and mat2 shapes cannot be multiplied (",
             da >= 2 ? mat_str({a.sizes()[da - 2], k_a}) : mat_str({1, k_a}), " and ",
             db >= 2 ? mat_str({k_b, b.sizes()[db - 1]}) : mat_str({k_b, 1}), ")");
  const IntList batch_a(a.sizes().begin(), a.sizes().end() - std::min<int64_t>(da, 2));
  const IntList batch_b(b.sizes().begin(), b.sizes().end() - std::min<int64_t>(db, 2));
  IntList out = broadcast(batch_a, batch_b);
  if (da >= 2) out.push_back(a.sizes()[da - 2]);
  if (db >= 2) out.push_back(b.sizes()[db - 1]);
  checked_numel(out);
  c.outputs = {{out, a.dtype()}};
}

}  // namespace

std::vector<OpDecl> blas_ops() {
  return {
      {.schema = "matmul(Tensor self, Tensor other) -> Tensor",
       .shape = &matmul_shape,
       .doc = "Matrix product with torch.matmul's broadcasting rules.",
       .derivative = {.vjp = &derivatives::matmul, .saves = save_arg(0) | save_arg(1)}},
      {.schema = "mm(Tensor self, Tensor mat2) -> Tensor",
       .shape = &mm_shape,
       .doc = "Matrix product of two 2-D tensors (same dtype).",
       .derivative = {.vjp = &derivatives::mm, .saves = save_arg(0) | save_arg(1)}},
      {.schema = "bmm(Tensor self, Tensor mat2) -> Tensor",
       .shape = &bmm_shape,
       .doc = "Batched matrix product of two 3-D tensors with equal batch sizes.",
       .derivative = {.vjp = &derivatives::bmm, .saves = save_arg(0) | save_arg(1)}},
      {.schema = "addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
       .shape = &addmm_shape,
       .doc = "beta * self + alpha * (mat1 @ mat2); self broadcasts; beta=0 ignores self (NaN too).",
       .derivative = {.vjp = &derivatives::addmm, .saves = save_arg(1) | save_arg(2)}},
      {.schema = "baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
       .shape = &baddbmm_shape,
       .doc = "beta * self + alpha * bmm(batch1, batch2); self broadcasts.",
       .derivative = {.vjp = &derivatives::baddbmm, .saves = save_arg(1) | save_arg(2)}},
      {.schema = "dot(Tensor self, Tensor tensor) -> Tensor",
       .shape = &dot_shape,
       .doc = "Inner product of two 1-D tensors (0-d).",
       .derivative = {.vjp = &derivatives::dot, .saves = save_arg(0) | save_arg(1)}},
      {.schema = "outer(Tensor self, Tensor vec2) -> Tensor",
       .composite = &outer_composite,
       .doc = "Outer product of two 1-D tensors (promoted as mul).",
       .derivative = {.decomposes = true}},
      {.schema = "linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor",
       .composite = &linear_composite,
       .doc = "input @ weight.T + bias over any leading dims.",
       .flags = kNNOnly,
       .derivative = {.vjp = &derivatives::linear, .saves = save_arg(0) | save_arg(1)}},
      {.schema = "linear_backward(Tensor self, Tensor grad_output, Tensor weight, int[3] output_mask) -> (Tensor, "
                 "Tensor, Tensor)",
       .shape = &linear_backward_shape,
       .composite = &linear_backward_composite,
       .doc = "linear's gradients (input, weight, bias: grad_output summed over all dims but the last) where "
              "output_mask (0/1 each; torch's bool[3]) asks, else undefined.",
       .derivative = {.decomposes = true}},
  };
}

}  // namespace axle::shape
