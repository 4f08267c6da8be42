// The seeded tensor factory of sample generators, the shared unary/binary
// sample sets, tolerances, result comparison and the generator registry.
#include "samples/samples.h"

#include <axle/compare.h>
#include <axle/error_kinds.h>
#include <axle/plugin/helpers.hpp>

#include <algorithm>
#include <cmath>
#include <typeinfo>

namespace axle::conformance {

const std::vector<DType> kEveryDType = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt8,
                                        kUInt8,   kInt16,   kInt32,   kInt64,    kBool};
const std::vector<DType> kFloating = {kFloat32, kFloat64, kFloat16, kBFloat16};
const std::vector<DType> kNumeric = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt8, kUInt8, kInt16, kInt32, kInt64};

const char* layout_name(Layout l) {
  switch (l) {
    case Layout::Contiguous: return "contiguous";
    case Layout::Transposed: return "transposed";
    case Layout::Stepped: return "stepped";
    case Layout::Expanded: return "expanded";
    case Layout::ChannelsLast: return "channels_last";
    case Layout::Offset: return "offset";
  }
  return "?";
}

namespace {

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// A contiguous host tensor of `sizes` filled with seeded values.
Tensor filled_host(const IntList& sizes, DType dtype, uint64_t seed, double low, double high) {
  Tensor t = make_empty(sizes, dtype, Device("cpu"));
  char* p = static_cast<char*>(t.data_ptr());
  const size_t es = element_size(dtype);
  if (dtype == kUInt8) low = std::max(low, 0.0);
  uint64_t state = seed;
  for (int64_t i = 0, n = t.numel(); i < n; ++i) {
    const double u = static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53;  // [0, 1)
    double v = low + (high - low) * u;
    if (dtype == kBool)
      v = u < 0.5 ? 0 : 1;
    else if (!is_floating_point(dtype))
      v = std::floor(v);
    plugin::store_from<double>(p + i * es, static_cast<axle_dtype>(dtype), v);
  }
  return t;
}

}  // namespace

uint64_t SampleContext::next_seed() {
  uint64_t s = seed_ * 1000003u + (++counter_);
  return splitmix64(s);
}

Tensor SampleContext::make(const IntList& sizes, Layout layout, std::optional<DType> dtype, double low, double high) {
  const DType dt = dtype.value_or(dtype_);
  const uint64_t seed = next_seed();
  const int64_t n = static_cast<int64_t>(sizes.size());
  auto on_device = [&](const IntList& base) { return filled_host(base, dt, seed, low, high).to(device_); };
  switch (layout) {
    case Layout::Transposed:
      if (n >= 2) {
        IntList base = sizes;
        std::swap(base[n - 1], base[n - 2]);
        return on_device(base).transpose(-1, -2);
      }
      break;
    case Layout::Stepped:
      if (n >= 1) {
        IntList base = sizes;
        base[n - 1] *= 2;
        return on_device(base).slice(n - 1, 0, std::nullopt, 2);
      }
      break;
    case Layout::Expanded:
      if (n >= 1) {
        IntList base = sizes;
        base[0] = 1;
        return on_device(base).expand(sizes);
      }
      break;
    case Layout::ChannelsLast:
      if (n == 4) return on_device({sizes[0], sizes[2], sizes[3], sizes[1]}).permute({0, 3, 1, 2});
      break;
    case Layout::Offset: {
      const int64_t count = checked_numel(sizes);
      return on_device({count + 3}).slice(0, 3).view(sizes);
    }
    case Layout::Contiguous: break;
  }
  return on_device(sizes);
}

Tensor SampleContext::indices(const IntList& sizes, int64_t bound, std::optional<Device> device) {
  Tensor t = filled_host(sizes, kInt64, next_seed(), 0, static_cast<double>(std::max<int64_t>(bound, 1)));
  return device ? t.to(*device) : t;
}

std::vector<std::pair<Tensor, std::string>> SampleContext::unary_variety(const IntList& sizes) {
  std::vector<std::pair<Tensor, std::string>> v;
  v.emplace_back(make(sizes), "contiguous " + shape_string(sizes));
  v.emplace_back(make({}), "0-d");
  v.emplace_back(make({0, 3}), "zero-size [0, 3]");
  v.emplace_back(make({2, 3, 4}, Layout::Transposed), "transposed [2, 3, 4]");
  v.emplace_back(make({3, 5}, Layout::Stepped), "stepped [3, 5]");
  v.emplace_back(make({4, 3}, Layout::Expanded), "expanded [4, 3]");
  v.emplace_back(make({2, 3}, Layout::Offset), "offset [2, 3]");
  return v;
}

std::vector<Sample> unary_samples(SampleContext& c, const Stack& extra) {
  std::vector<Sample> out;
  for (auto& [t, note] : c.unary_variety()) {
    Stack args{t};
    args.insert(args.end(), extra.begin(), extra.end());
    out.push_back(ok(std::move(args), note));
  }
  if (is_floating_point(c.dtype())) {
    // NaN propagates and infinities are exact, also through vectorized library kernels.
    static const double v[] = {NAN, INFINITY, -INFINITY, 0.5, -0.5, 0.0, -0.0, 2.0};
    Stack args{from_blob(const_cast<double*>(v), {2, 4}, TensorOptions().dtype(kFloat64))
                   .to(c.dtype(), false, true)
                   .to(c.device())};
    args.insert(args.end(), extra.begin(), extra.end());
    out.push_back(ok(std::move(args), "NaN and infinities"));
  }
  return out;
}

std::vector<Sample> binary_samples(SampleContext& c, const Stack& extra, double lo, double hi) {
  std::vector<Sample> out;
  auto add = [&](Tensor a, Tensor b, std::string note) {
    Stack args{std::move(a), std::move(b)};
    args.insert(args.end(), extra.begin(), extra.end());
    out.push_back(ok(std::move(args), std::move(note)));
  };
  const Layout C = Layout::Contiguous;
  add(c.make({3, 4}), c.make({3, 4}, C, {}, lo, hi), "same shape");
  add(c.make({3, 1, 4}), c.make({5, 4}, C, {}, lo, hi), "broadcast [3, 1, 4] x [5, 4]");
  add(c.make({}), c.make({2, 3}, C, {}, lo, hi), "0-d x [2, 3]");
  const DType wide = is_floating_point(c.dtype()) ? kFloat64 : kInt64;  // a 0-d operand does not promote
  add(c.make({2, 3}), c.make({}, C, wide, lo, hi), "[2, 3] x 0-d " + std::string(dtype_name(wide)));
  add(c.make({0, 4}), c.make({4}, C, {}, lo, hi), "zero-size");
  add(c.make({3, 4}, Layout::Transposed), c.make({3, 4}, Layout::Stepped, {}, lo, hi), "transposed x stepped");
  add(c.make({4, 3}, Layout::Expanded), c.make({4, 3}, Layout::Offset, {}, lo, hi), "expanded x offset");
  add(c.make({2, 3}), c.make({2, 3}, C, kInt32, lo, hi), "mixed dtype with int32");
  Stack bad{c.make({2, 3}), c.make({4})};
  bad.insert(bad.end(), extra.begin(), extra.end());
  out.push_back(fails(std::move(bad), "shapes [2, 3] and [4] do not broadcast", "ShapeError"));
  return out;
}

std::pair<double, double> default_tolerance(DType d) {
  switch (d) {
    case kFloat32: return {1.3e-6, 1e-5};
    case kFloat64: return {1e-7, 1e-7};
    case kFloat16: return {1e-3, 1e-5};
    case kBFloat16: return {1.6e-2, 1e-5};
    default: return {0, 0};
  }
}

double accumulation_atol(const Tensor& want) {
  double eps = 0;
  switch (want.dtype()) {
    case kFloat32: eps = 0x1p-23; break;
    case kFloat64: eps = 0x1p-52; break;
    case kFloat16: eps = 0x1p-10; break;
    case kBFloat16: eps = 0x1p-7; break;
    default: return 0;
  }
  if (want.numel() == 0) return 0;
  const Tensor magnitude = nan_to_num(abs(want.to(kFloat64)), 0.0, 0.0, 0.0);  // finite values only
  return eps * amax(magnitude).item<double>();
}

std::string compare(const Tensor& got, const Tensor& want, double rtol, double atol) {
  const Comparison c = axle::compare(got, want, Tolerance{.rtol = rtol, .atol = atol, .equal_nan = true});
  if (c.matches()) return "";
  if (!c.mismatch.empty()) return c.mismatch;
  return detail::concat(c.describe(), " with rtol ", rtol, ", atol ", atol, "; max abs error ", c.max_abs);
}

std::string error_class(const std::exception& e) {
  if (const ErrorKind* kind = error_kind_of(e)) return std::string(kind->name);
  return typeid(e).name();
}

const std::vector<OpSamples>& all_samples() {
  static const std::vector<OpSamples> all = [] {
    std::vector<OpSamples> v;
    // One family per line (conformance/src/samples/<family>.cpp).
    // clang-format off
    std::vector<OpSamples> (*families[])() = {
        &creation_samples,
        &copy_samples,
        &pointwise_samples,
        &pointwise_special_samples,
        &reduction_samples,
        &blas_samples,
        &indexing_samples,
        &random_samples,
        &views_samples,
        &activations_samples,
        &nn_samples,
        &conv_pool_samples,
        &conv_pool_backward_samples,
        &conv_pool3d_samples,
        &conv_pool3d_backward_samples,
        &conv_pool_grid_sample_samples,
        &nn_backward_samples,
        &nn_rnn_samples,
        &optim_samples,
        &linalg_samples,
        &linalg_decomp_samples,
    };
    // clang-format on
    for (auto family : families) {
      const std::vector<OpSamples> list = family();
      v.insert(v.end(), list.begin(), list.end());
    }
    return v;
  }();
  return all;
}

const OpSamples* find_samples(std::string_view op) {
  for (const OpSamples& s : all_samples())
    if (op == s.op) return &s;
  return nullptr;
}

}  // namespace axle::conformance
