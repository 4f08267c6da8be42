// Samples for the fused LSTM and GRU cells and their backward ops
// (dispatcher/src/ops/nn_rnn.cpp): hidden sizes below and above a vector
// width, with and without biases, a transposed-layout gate input (which the
// cpu plugin declines), a zero batch, and the inputs that must fail.
#include "samples.h"

namespace axle::conformance {
namespace {

const Layout C = Layout::Contiguous, T = Layout::Transposed;
const std::vector<DType> kCellDTypes = {kFloat32, kFloat64};

// _thnn_fused_lstm_cell(input_gates, hidden_gates, cx, input_bias, hidden_bias)
std::vector<Sample> lstm_cell_samples(SampleContext& c) {
  auto v = [&](IntList s, Layout l = C) { return c.make(s, l, {}, -2, 2); };
  return {
      ok({v({3, 8}), v({3, 8}), v({3, 2}), v({8}), v({8})}, "batch 3, hidden 2, both biases"),
      ok({v({4, 72}), v({4, 72}), v({4, 18}), Value(), Value()}, "hidden 18, no biases"),
      ok({v({2, 64}), v({2, 64}), v({2, 16}), v({64}), Value()}, "hidden 16, input bias only"),
      ok({v({5, 12}, T), v({5, 12}), v({5, 3}), Value(), v({12})}, "transposed-layout input_gates, hidden bias only"),
      ok({v({0, 8}), v({0, 8}), v({0, 2}), v({8}), v({8})}, "zero batch"),
      fails({v({3, 8}), v({3, 4}), v({3, 2}), Value(), Value()}, "hidden_gates of another size", "ShapeError"),
      fails({v({3, 8}), v({3, 8}), v({3, 3}), Value(), Value()}, "cx of another hidden size", "ShapeError"),
      fails({v({3, 6}), v({3, 6}), v({3, 2}), Value(), Value()}, "gates not a multiple of 4", "ShapeError"),
      fails({v({3, 8}), v({3, 8}), v({3, 2}), v({4}), Value()}, "input_bias of another size", "ShapeError"),
  };
}

// _thnn_fused_lstm_cell_backward_impl(grad_hy, grad_cy, cx, cy, workspace, has_bias)
std::vector<Sample> lstm_cell_backward_samples(SampleContext& c) {
  auto v = [&](IntList s, Layout l = C) { return c.make(s, l, {}, -1, 1); };
  return {
      ok({v({3, 2}), v({3, 2}), v({3, 2}), v({3, 2}), v({3, 8}), true}, "both gradients, with biases"),
      ok({v({4, 18}), Value(), v({4, 18}), v({4, 18}), v({4, 72}), false}, "grad_cy None, no biases"),
      ok({Value(), v({2, 16}), v({2, 16}), v({2, 16}), v({2, 64}), true}, "grad_hy None"),
      ok({v({5, 3}, T), v({5, 3}), v({5, 3}), v({5, 3}), v({5, 12}), true}, "transposed-layout grad_hy"),
      ok({v({0, 2}), v({0, 2}), v({0, 2}), v({0, 2}), v({0, 8}), true}, "zero batch"),
      fails({v({3, 2}), v({3, 2}), v({3, 2}), v({3, 2}), v({3, 6}), true}, "workspace not a multiple of 4",
            "ShapeError"),
      fails({v({3, 3}), v({3, 2}), v({3, 2}), v({3, 2}), v({3, 8}), true}, "grad_hy of another size", "ShapeError"),
  };
}

// _thnn_fused_gru_cell(input_gates, hidden_gates, hx, input_bias, hidden_bias)
std::vector<Sample> gru_cell_samples(SampleContext& c) {
  auto v = [&](IntList s, Layout l = C) { return c.make(s, l, {}, -2, 2); };
  return {
      ok({v({3, 6}), v({3, 6}), v({3, 2}), v({6}), v({6})}, "batch 3, hidden 2, both biases"),
      ok({v({4, 54}), v({4, 54}), v({4, 18}), Value(), Value()}, "hidden 18, no biases"),
      ok({v({2, 48}), v({2, 48}), v({2, 16}), v({48}), Value()}, "hidden 16, input bias only"),
      ok({v({5, 9}, T), v({5, 9}), v({5, 3}), Value(), v({9})}, "transposed-layout input_gates, hidden bias only"),
      ok({v({0, 6}), v({0, 6}), v({0, 2}), v({6}), v({6})}, "zero batch"),
      fails({v({3, 6}), v({3, 3}), v({3, 2}), Value(), Value()}, "hidden_gates of another size", "ShapeError"),
      fails({v({3, 6}), v({3, 6}), v({3, 3}), Value(), Value()}, "hx of another hidden size", "ShapeError"),
      fails({v({3, 8}), v({3, 8}), v({3, 2}), Value(), Value()}, "gates not a multiple of 3", "ShapeError"),
      fails({v({3, 6}), v({3, 6}), v({3, 2}), v({4}), Value()}, "input_bias of another size", "ShapeError"),
  };
}

// _thnn_fused_gru_cell_backward(grad_hy, workspace, has_bias)
std::vector<Sample> gru_cell_backward_samples(SampleContext& c) {
  auto v = [&](IntList s, Layout l = C) { return c.make(s, l, {}, -1, 1); };
  return {
      ok({v({3, 2}), v({3, 10}), true}, "with biases"),
      ok({v({4, 18}), v({4, 90}), false}, "no biases"),
      ok({v({5, 3}, T), v({5, 15}), true}, "transposed-layout grad_hy"),
      ok({v({0, 2}), v({0, 10}), true}, "zero batch"),
      fails({v({3, 2}), v({3, 8}), true}, "workspace not a multiple of 5", "ShapeError"),
      fails({v({3, 3}), v({3, 10}), true}, "grad_hy of another size", "ShapeError"),
  };
}

}  // namespace

std::vector<OpSamples> nn_rnn_samples() {
  return {
      {"_thnn_fused_lstm_cell", &lstm_cell_samples, kCellDTypes, 4},
      {"_thnn_fused_lstm_cell_backward_impl", &lstm_cell_backward_samples, kCellDTypes, 4},
      {"_thnn_fused_gru_cell", &gru_cell_samples, kCellDTypes, 4},
      {"_thnn_fused_gru_cell_backward", &gru_cell_backward_samples, kCellDTypes, 4},
  };
}

}  // namespace axle::conformance
