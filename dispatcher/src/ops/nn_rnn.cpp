// The fused LSTM and GRU cells of the nn family, with aten's names and schemas:
// _thnn_fused_lstm_cell takes the two gate projections (x W_ih^T and h W_hh^T,
// [batch, 4 * hidden], gates in torch's order i, f, g, o) and the cell state,
// and returns the new hidden and cell states and a workspace holding the
// activated gates, which _thnn_fused_lstm_cell_backward_impl turns into the
// gates' gradient. nn.LSTM / nn.LSTMCell run one step as two matrix products
// and this op (one call instead of the cell's ten pointwise ops, and one
// instead of about fifteen in backward); the composites here serve every device
// without a kernel of its own. _thnn_fused_gru_cell and
// _thnn_fused_gru_cell_backward do the same for nn.GRU / nn.GRUCell (gates r,
// z, n; [batch, 3 * hidden]; a workspace of r, z, n, the hidden n gate and hx).
#include "../derivatives/derivatives.h"
#include "shape_util.h"

#include <axle/ops.h>

namespace axle::shape {
namespace {

// input_gates and hidden_gates [B, gates * H] of one floating dtype, the state
// (`state`: the LSTM's cx, the GRU's hx) [B, H], the biases [gates * H] or
// None. Returns H.
int64_t check_cell(const char* op, int64_t gates, const char* state, const Tensor& ig, const Tensor& hg,
                   const Tensor& sx, const Value& ib, const Value& hb) {
  AXLE_CHECK(ig.dim() == 2 && ig.size(1) % gates == 0, ShapeError, op, ": expected input_gates of size [batch, ", gates,
             " * hidden], got ", str(ig.sizes()));
  AXLE_CHECK(hg.sizes() == ig.sizes(), ShapeError, op, ": expected hidden_gates of input_gates' size ", str(ig.sizes()),
             ", got ", str(hg.sizes()));
  const int64_t h = ig.size(1) / gates;
  AXLE_CHECK(sx.dim() == 2 && sx.size(0) == ig.size(0) && sx.size(1) == h, ShapeError, op, ": expected ", state,
             " of size [", ig.size(0), ", ", h, "], got ", str(sx.sizes()));
  AXLE_CHECK(is_floating_point(ig.dtype()) && hg.dtype() == ig.dtype() && sx.dtype() == ig.dtype(), DTypeError, op,
             ": expected floating input_gates, hidden_gates and ", state, " of one dtype, got ", dtype_name(ig.dtype()),
             ", ", dtype_name(hg.dtype()), " and ", dtype_name(sx.dtype()));
  for (const auto& [b, name] : {std::pair{&ib, "input_bias"}, std::pair{&hb, "hidden_bias"}}) {
    if (b->is_none()) continue;
    const Tensor& t = b->tensor();
    AXLE_CHECK(t.dim() == 1 && t.size(0) == gates * h && t.dtype() == ig.dtype(), ShapeError, op, ": expected ", name,
               " of size [", gates * h, "] and dtype ", dtype_name(ig.dtype()), ", got ", str(t.sizes()), " of ",
               dtype_name(t.dtype()));
  }
  return h;
}

int64_t check_lstm_cell(const char* op, const Tensor& ig, const Tensor& hg, const Tensor& cx, const Value& ib,
                        const Value& hb) {
  return check_cell(op, 4, "cx", ig, hg, cx, ib, hb);
}

void lstm_cell_shape(ShapeContext& c) {
  const Tensor& ig = c.arg(0).tensor();
  const int64_t h = check_lstm_cell(c.op, ig, c.arg(1).tensor(), c.arg(2).tensor(), c.arg(3), c.arg(4));
  const IntList state{ig.size(0), h};
  c.outputs = {{state, ig.dtype()}, {state, ig.dtype()}, {ig.sizes(), ig.dtype()}};
}

Tensor chunk_of(const Tensor& t, int64_t k, int64_t h) { return narrow(t, 1, k * h, h); }
Tensor zeros_of(const Tensor& t) { return zeros(t.sizes(), TensorOptions().dtype(t.dtype()).device(t.device())); }

Stack lstm_cell_composite(const Stack& a) {
  const Tensor& ig = a[0].tensor();
  const int64_t h = check_lstm_cell("_thnn_fused_lstm_cell", ig, a[1].tensor(), a[2].tensor(), a[3], a[4]);
  Tensor gates = ig + a[1].tensor();
  if (!a[3].is_none()) gates = gates + a[3].tensor();
  if (!a[4].is_none()) gates = gates + a[4].tensor();
  const Tensor i = sigmoid(chunk_of(gates, 0, h)), f = sigmoid(chunk_of(gates, 1, h));
  const Tensor g = tanh(chunk_of(gates, 2, h)), o = sigmoid(chunk_of(gates, 3, h));
  const Tensor cy = f * a[2].tensor() + i * g;
  return {o * tanh(cy), cy, cat({i, f, g, o}, 1)};
}

// (grad_hy, grad_cy, cx, cy, workspace, has_bias): either gradient may be None.
int64_t check_lstm_cell_backward(const char* op, const Stack& a) {
  const Tensor& cx = a[2].tensor();
  const Tensor& cy = a[3].tensor();
  const Tensor& ws = a[4].tensor();
  AXLE_CHECK(ws.dim() == 2 && ws.size(1) % 4 == 0, ShapeError, op,
             ": expected workspace of size [batch, 4 * hidden], got ", str(ws.sizes()));
  const IntList state{ws.size(0), ws.size(1) / 4};
  for (const auto& [i, name] :
       {std::pair{0, "grad_hy"}, std::pair{1, "grad_cy"}, std::pair{2, "cx"}, std::pair{3, "cy"}}) {
    if (a[static_cast<size_t>(i)].is_none()) continue;
    const Tensor& t = a[static_cast<size_t>(i)].tensor();
    AXLE_CHECK(t.sizes() == state, ShapeError, op, ": expected ", name, " of size ", str(state), ", got ",
               str(t.sizes()));
    AXLE_CHECK(t.dtype() == ws.dtype() && is_floating_point(t.dtype()), DTypeError, op, ": expected ", name,
               " of the workspace's floating dtype ", dtype_name(ws.dtype()), ", got ", dtype_name(t.dtype()));
  }
  (void)cx;
  (void)cy;
  return state[1];
}

void lstm_cell_backward_shape(ShapeContext& c) {
  const int64_t h = check_lstm_cell_backward(c.op, c.args);
  const Tensor& ws = c.arg(4).tensor();
  c.outputs = {{ws.sizes(), ws.dtype()}, {IntList{ws.size(0), h}, ws.dtype()}, {IntList{4 * h}, ws.dtype()}};
  // Without biases there is no bias gradient: an undefined output, as torch's.
  if (!c.arg(5).to_bool()) c.outputs[2].data_dependent = true;
}

Stack lstm_cell_backward_composite(const Stack& a) {
  const int64_t h = check_lstm_cell_backward("_thnn_fused_lstm_cell_backward_impl", a);
  const Tensor& ws = a[4].tensor();
  const Tensor i = chunk_of(ws, 0, h), f = chunk_of(ws, 1, h), g = chunk_of(ws, 2, h), o = chunk_of(ws, 3, h);
  const Tensor one = scalar_to_tensor(Scalar(1.0));
  const Tensor tanh_cy = tanh(a[3].tensor());
  // The cell state's whole gradient: its own plus what reaches it through hy.
  Tensor gc = a[1].is_none() ? zeros_of(tanh_cy) : a[1].tensor();
  Tensor go = zeros_of(tanh_cy);
  if (!a[0].is_none()) {
    const Tensor& gh = a[0].tensor();
    gc = gc + gh * o * (one - tanh_cy * tanh_cy);
    go = gh * tanh_cy;
  }
  const Tensor gi = gc * g * i * (one - i), gf = gc * a[2].tensor() * f * (one - f);
  const Tensor gg = gc * i * (one - g * g), gos = go * o * (one - o);
  const Tensor gates = cat({gi, gf, gg, gos}, 1);
  return {gates, gc * f, a[5].to_bool() ? sum(gates, IntList{0}) : Tensor()};
}

// ---------------------------------------------------------------- GRU
// Gates r, z, n: [B, 3H]; hx [B, H].
int64_t check_gru_cell(const char* op, const Tensor& ig, const Tensor& hg, const Tensor& hx, const Value& ib,
                       const Value& hb) {
  return check_cell(op, 3, "hx", ig, hg, hx, ib, hb);
}

void gru_cell_shape(ShapeContext& c) {
  const Tensor& ig = c.arg(0).tensor();
  const int64_t h = check_gru_cell(c.op, ig, c.arg(1).tensor(), c.arg(2).tensor(), c.arg(3), c.arg(4));
  c.outputs = {{IntList{ig.size(0), h}, ig.dtype()}, {IntList{ig.size(0), 5 * h}, ig.dtype()}};
}

// torch's GRU step: r = sigmoid(i_r + h_r), z = sigmoid(i_z + h_z),
// n = tanh(i_n + r * h_n) (each gate input with its bias), hy = n + z (hx - n).
// The workspace holds r, z, n, h_n (with its bias) and hx.
Stack gru_cell_composite(const Stack& a) {
  const Tensor& hx = a[2].tensor();
  const int64_t h = check_gru_cell("_thnn_fused_gru_cell", a[0].tensor(), a[1].tensor(), hx, a[3], a[4]);
  const Tensor ig = a[3].is_none() ? a[0].tensor() : a[0].tensor() + a[3].tensor();
  const Tensor hg = a[4].is_none() ? a[1].tensor() : a[1].tensor() + a[4].tensor();
  const Tensor r = sigmoid(chunk_of(ig, 0, h) + chunk_of(hg, 0, h));
  const Tensor z = sigmoid(chunk_of(ig, 1, h) + chunk_of(hg, 1, h));
  const Tensor hn = chunk_of(hg, 2, h);
  const Tensor n = tanh(chunk_of(ig, 2, h) + r * hn);
  return {n + z * (hx - n), cat({r, z, n, hn, hx}, 1)};
}

// (grad_hy, workspace, has_bias)
int64_t check_gru_cell_backward(const char* op, const Stack& a) {
  const Tensor& gh = a[0].tensor();
  const Tensor& ws = a[1].tensor();
  AXLE_CHECK(ws.dim() == 2 && ws.size(1) % 5 == 0, ShapeError, op,
             ": expected workspace of size [batch, 5 * hidden], got ", str(ws.sizes()));
  const IntList state{ws.size(0), ws.size(1) / 5};
  AXLE_CHECK(gh.sizes() == state, ShapeError, op, ": expected grad_hy of size ", str(state), ", got ", str(gh.sizes()));
  AXLE_CHECK(gh.dtype() == ws.dtype() && is_floating_point(ws.dtype()), DTypeError, op,
             ": expected grad_hy and workspace of one floating dtype, got ", dtype_name(gh.dtype()), " and ",
             dtype_name(ws.dtype()));
  return state[1];
}

void gru_cell_backward_shape(ShapeContext& c) {
  const int64_t h = check_gru_cell_backward(c.op, c.args);
  const Tensor& ws = c.arg(1).tensor();
  const IntList gates{ws.size(0), 3 * h};
  c.outputs = {{gates, ws.dtype()},
               {gates, ws.dtype()},
               {IntList{ws.size(0), h}, ws.dtype()},
               {IntList{3 * h}, ws.dtype()},
               {IntList{3 * h}, ws.dtype()}};
  // Without biases there are no bias gradients: undefined outputs, as torch's.
  if (!c.arg(2).to_bool()) c.outputs[3].data_dependent = c.outputs[4].data_dependent = true;
}

// hy = n + z (hx - n): dn = g (1 - z), dz = g (hx - n), dhx = g z; through
// n = tanh(a_n): da_n = dn (1 - n^2), which reaches i_n, and h_n times r; r
// gets da_n h_n; the sigmoids' derivatives give the r and z gates.
Stack gru_cell_backward_composite(const Stack& a) {
  const int64_t h = check_gru_cell_backward("_thnn_fused_gru_cell_backward", a);
  const Tensor& g = a[0].tensor();
  const Tensor& ws = a[1].tensor();
  const Tensor r = chunk_of(ws, 0, h), z = chunk_of(ws, 1, h), n = chunk_of(ws, 2, h), hn = chunk_of(ws, 3, h),
               hx = chunk_of(ws, 4, h);
  const Tensor one = scalar_to_tensor(Scalar(1.0));
  const Tensor dan = g * (one - z) * (one - n * n);
  const Tensor dar = dan * hn * r * (one - r);
  const Tensor daz = g * (hx - n) * z * (one - z);
  const Tensor gi = cat({dar, daz, dan}, 1), gh = cat({dar, daz, dan * r}, 1);
  const bool bias = a[2].to_bool();
  return {gi, gh, g * z, bias ? sum(gi, IntList{0}) : Tensor(), bias ? sum(gh, IntList{0}) : Tensor()};
}

}  // namespace

std::vector<OpDecl> nn_rnn_ops() {
  return {
      {.schema = "_thnn_fused_lstm_cell(Tensor input_gates, Tensor hidden_gates, Tensor cx, Tensor? input_bias=None, "
                 "Tensor? hidden_bias=None) -> (Tensor, Tensor, Tensor)",
       .shape = &lstm_cell_shape,
       .composite = &lstm_cell_composite,
       .doc = "One LSTM step from its gate projections [batch, 4 * hidden] (order i, f, g, o): (hy, cy, workspace); "
              "the workspace holds the activated gates for the backward op.",
       .derivative = {.vjp = &derivatives::fused_lstm_cell, .saves = save_arg(2) | save_output(1) | save_output(2)}},
      {.schema = "_thnn_fused_lstm_cell_backward_impl(Tensor? grad_hy, Tensor? grad_cy, Tensor cx, Tensor cy, Tensor "
                 "workspace, bool has_bias) -> (Tensor, Tensor, Tensor)",
       .shape = &lstm_cell_backward_shape,
       .composite = &lstm_cell_backward_composite,
       .doc = "_thnn_fused_lstm_cell's gradients: (gates [batch, 4 * hidden], for both gate inputs; cx; the biases "
              "(the gates' sum over the batch), undefined when has_bias is false).",
       .derivative = {.decomposes = true}},
      {.schema = "_thnn_fused_gru_cell(Tensor input_gates, Tensor hidden_gates, Tensor hx, Tensor? input_bias=None, "
                 "Tensor? hidden_bias=None) -> (Tensor, Tensor)",
       .shape = &gru_cell_shape,
       .composite = &gru_cell_composite,
       .doc = "One GRU step from its gate projections [batch, 3 * hidden] (order r, z, n): (hy, workspace); the "
              "workspace holds r, z, n, the hidden n gate and hx for the backward op.",
       .derivative = {.vjp = &derivatives::fused_gru_cell, .saves = save_output(1)}},
      {.schema = "_thnn_fused_gru_cell_backward(Tensor grad_hy, Tensor workspace, bool has_bias) -> (Tensor, Tensor, "
                 "Tensor, Tensor, Tensor)",
       .shape = &gru_cell_backward_shape,
       .composite = &gru_cell_backward_composite,
       .doc = "_thnn_fused_gru_cell's gradients: (input_gates, hidden_gates, hx, input_bias, hidden_bias); the "
              "biases' (the gates' batch sums) undefined when has_bias is false.",
       .derivative = {.decomposes = true}},
  };
}

}  // namespace axle::shape
