// Samples for grid sampling and affine grids
// (dispatcher/src/ops/conv_pool_grid_sample.cpp): every interpolation and
// padding mode, both align_corners, grids reaching a little past [-1, 1] (so
// padding matters). torch's CPU samples float32 and float64 only: bfloat16
// must fail. Backward ops: output_mask is 0/1 per output (torch's bool[2]).
#include "samples.h"

namespace axle::conformance {
namespace {

const Layout T = Layout::Transposed, S = Layout::Stepped, O = Layout::Offset;
const std::vector<DType> kGridDTypes = {kFloat32, kFloat64, kBFloat16};

bool samples_dtype(const SampleContext& c) { return c.dtype() == kFloat32 || c.dtype() == kFloat64; }

// A grid of points in [-1.3, 1.3) for `sizes` ([N, ..., dims]).
Tensor grid(SampleContext& c, const IntList& sizes, Layout l = Layout::Contiguous, std::optional<DType> d = {}) {
  return c.make(sizes, l, d, -1.3, 1.3);
}

// (input, grid, interpolation_mode, padding_mode, align_corners) for every mode
// and padding, on input `in` and grid sizes `gs`.
std::vector<Sample> every_mode(SampleContext& c, const IntList& in, const IntList& gs, int64_t modes) {
  std::vector<Sample> out;
  const char* mode_names[] = {"bilinear", "nearest", "bicubic"};
  const char* pad_names[] = {"zeros", "border", "reflection"};
  for (int64_t m = 0; m < modes; ++m)
    for (int64_t p = 0; p < 3; ++p)
      for (bool align : {false, true})
        out.push_back(ok({c.make(in), grid(c, gs), m, p, align},
                         std::string(mode_names[m]) + ", " + pad_names[p] + (align ? ", align_corners" : "")));
  return out;
}

std::vector<Sample> grid_sampler_2d_samples(SampleContext& c) {
  if (!samples_dtype(c))
    return {fails({c.make({1, 2, 3, 3}), grid(c, {1, 2, 2, 2}), 0, 0, false}, "dtype torch's CPU does not sample",
                  "DTypeError")};
  std::vector<Sample> out = every_mode(c, {2, 3, 4, 5}, {2, 3, 4, 2}, 3);
  const std::vector<Sample> more = {
      ok({c.make({1, 2, 5, 4}, T), grid(c, {1, 3, 2, 2}, S), 0, 2, false},
         "transposed-layout input, stepped grid, bilinear reflection"),
      ok({c.make({2, 2, 3, 6}, O), grid(c, {2, 2, 3, 2}, O), 2, 1, true}, "offset input and grid, bicubic border"),
      ok({c.make({1, 3, 1, 1}), grid(c, {1, 2, 2, 2}), 0, 2, true}, "1x1 input, reflection with align_corners"),
      ok({c.make({0, 3, 4, 5}), grid(c, {0, 3, 4, 2}), 0, 0, false}, "batch 0"),
      ok({c.make({2, 0, 4, 5}), grid(c, {2, 3, 4, 2}), 0, 0, false}, "zero channels"),
      ok({c.make({2, 3, 4, 5}), grid(c, {2, 0, 4, 2}), 1, 0, false}, "empty grid"),
      fails({c.make({2, 3, 4, 5}), grid(c, {1, 3, 4, 2}), 0, 0, false}, "batch sizes differ", "ShapeError"),
      fails({c.make({2, 3, 4, 5}), grid(c, {2, 3, 4, 3}), 0, 0, false}, "grid of 3 coordinates", "ShapeError"),
      fails({c.make({2, 3, 0, 5}), grid(c, {2, 3, 4, 2}), 0, 0, false}, "zero height", "ShapeError"),
      fails({c.make({2, 3, 5}), grid(c, {2, 3, 4, 1}), 0, 0, false}, "3-d input", "ShapeError"),
      fails({c.make({2, 3, 4, 5}), grid(c, {2, 3, 4, 2}, T, c.dtype() == kFloat32 ? kFloat64 : kFloat32), 0, 0, false},
            "grid of another dtype", "DTypeError"),
  };
  out.insert(out.end(), more.begin(), more.end());
  return out;
}

std::vector<Sample> grid_sampler_3d_samples(SampleContext& c) {
  if (!samples_dtype(c))
    return {fails({c.make({1, 2, 3, 3, 3}), grid(c, {1, 2, 2, 2, 3}), 0, 0, false}, "dtype torch's CPU does not sample",
                  "DTypeError")};
  std::vector<Sample> out = every_mode(c, {2, 2, 3, 4, 5}, {2, 2, 3, 2, 3}, 2);
  const std::vector<Sample> more = {
      ok({c.make({1, 2, 3, 5, 4}, T), grid(c, {1, 2, 3, 2, 3}, S), 0, 2, false},
         "transposed-layout input, stepped grid"),
      ok({c.make({0, 2, 3, 4, 5}), grid(c, {0, 2, 3, 2, 3}), 0, 0, false}, "batch 0"),
      fails({c.make({2, 2, 3, 4, 5}), grid(c, {2, 2, 3, 2, 3}), 2, 0, false}, "bicubic", "ValueError"),
      fails({c.make({2, 2, 3, 4, 5}), grid(c, {2, 2, 3, 2, 2}), 0, 0, false}, "grid of 2 coordinates", "ShapeError"),
      fails({c.make({2, 3, 4, 5}), grid(c, {2, 3, 4, 2}), 0, 0, false}, "4-d input", "ShapeError"),
  };
  out.insert(out.end(), more.begin(), more.end());
  return out;
}

// grid_sampler (the dispatching op): both ranks.
std::vector<Sample> grid_sampler_samples(SampleContext& c) {
  if (!samples_dtype(c))
    return {fails({c.make({1, 2, 3, 3}), grid(c, {1, 2, 2, 2}), 0, 0, false}, "dtype torch's CPU does not sample",
                  "DTypeError")};
  return {
      ok({c.make({2, 3, 4, 5}), grid(c, {2, 3, 4, 2}), 0, 0, false}, "4-d: bilinear"),
      ok({c.make({2, 3, 4, 5}), grid(c, {2, 3, 4, 2}), 2, 2, true}, "4-d: bicubic reflection"),
      ok({c.make({1, 2, 3, 4, 5}), grid(c, {1, 2, 3, 2, 3}), 1, 1, false}, "5-d: nearest border"),
      fails({c.make({2, 3, 5}), grid(c, {2, 3, 1}), 0, 0, false}, "3-d input", "ShapeError"),
  };
}

// grid_sampler_{2,3}d_backward(grad_output, input, grid, interpolation_mode, padding_mode, align_corners, mask)
std::vector<Sample> grid_backward_samples(SampleContext& c, int dims) {
  const IntList in = dims == 2 ? IntList{2, 3, 4, 5} : IntList{2, 2, 3, 4, 5};
  const IntList gs = dims == 2 ? IntList{2, 3, 4, 2} : IntList{2, 2, 3, 2, 3};
  const IntList os = dims == 2 ? IntList{2, 3, 3, 4} : IntList{2, 2, 2, 3, 2};
  if (!samples_dtype(c))
    return {fails({c.make(os), c.make(in), grid(c, gs), 0, 0, false, IntList{1, 1}},
                  "dtype torch's CPU does not sample", "DTypeError")};
  std::vector<Sample> out;
  const char* mode_names[] = {"bilinear", "nearest", "bicubic"};
  const char* pad_names[] = {"zeros", "border", "reflection"};
  for (int64_t m = 0; m < (dims == 2 ? 3 : 2); ++m)
    for (int64_t p = 0; p < 3; ++p) {
      const bool align = (m + p) % 2 == 1;
      out.push_back(ok({c.make(os), c.make(in), grid(c, gs), m, p, align, IntList{1, 1}},
                       std::string(mode_names[m]) + ", " + pad_names[p] + (align ? ", align_corners" : "")));
    }
  out.push_back(ok({c.make(os, T), c.make(in, S), grid(c, gs), 0, 0, false, IntList{1, 0}},
                   "mask: input only, transposed-layout grad_output, stepped input"));
  out.push_back(ok({c.make(os), c.make(in), grid(c, gs, S), 0, 2, true, IntList{0, 1}}, "mask: grid only"));
  out.push_back(fails({c.make(in), c.make(in), grid(c, gs), 0, 0, false, IntList{1, 1}},
                      "grad_output of the input's size", "ShapeError"));
  return out;
}
std::vector<Sample> grid_sampler_2d_backward_samples(SampleContext& c) { return grid_backward_samples(c, 2); }
std::vector<Sample> grid_sampler_3d_backward_samples(SampleContext& c) { return grid_backward_samples(c, 3); }

// affine_grid_generator(theta, size, align_corners)
std::vector<Sample> affine_grid_samples(SampleContext& c) {
  return {
      ok({c.make({2, 2, 3}), IntList{2, 3, 4, 5}, false}, "2-d"),
      ok({c.make({2, 2, 3}), IntList{2, 3, 4, 5}, true}, "2-d, align_corners"),
      ok({c.make({1, 2, 3}, T), IntList{1, 1, 1, 6}, false}, "2-d, height 1, transposed-layout theta"),
      ok({c.make({2, 3, 4}), IntList{2, 3, 2, 4, 3}, false}, "3-d"),
      ok({c.make({1, 3, 4}, S), IntList{1, 1, 3, 1, 2}, true}, "3-d, align_corners, stepped theta"),
      ok({c.make({0, 2, 3}), IntList{0, 3, 4, 5}, false}, "batch 0"),
      fails({c.make({2, 3, 3}), IntList{2, 3, 4, 5}, false}, "3x3 theta for a 2-d grid", "ShapeError"),
      fails({c.make({2, 2, 3}), IntList{2, 3, 4, 5, 6}, false}, "2x3 theta for a 3-d grid", "ShapeError"),
      fails({c.make({2, 2, 3}), IntList{3, 3, 4, 5}, false}, "batch sizes differ", "ShapeError"),
      fails({c.make({2, 2, 3}), IntList{2, 3, 4}, false}, "3 sizes", "ValueError"),
  };
}

}  // namespace

std::vector<OpSamples> conv_pool_grid_sample_samples() {
  return {
      {"grid_sampler_2d", &grid_sampler_2d_samples, kGridDTypes, 4},
      {"grid_sampler_2d_backward", &grid_sampler_2d_backward_samples, kGridDTypes, 8},
      {"grid_sampler_3d", &grid_sampler_3d_samples, kGridDTypes, 4},
      {"grid_sampler_3d_backward", &grid_sampler_3d_backward_samples, kGridDTypes, 8},
      {"grid_sampler", &grid_sampler_samples, kGridDTypes, 4},
      {"affine_grid_generator", &affine_grid_samples, {kFloat32, kFloat64}, 4},
  };
}

}  // namespace axle::conformance
