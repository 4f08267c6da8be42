// Reference kernels of the reductions in dispatcher/src/ops/reduction.cpp.
// sum and mean accumulate every input element into a contiguous accumulator
// viewed through the input's shape with stride 0 on the reduced dims, then
// convert into the (possibly strided) output. Two generic loops serve the rest,
// in compute type T (double for floating inputs, int64_t otherwise):
// reduce_groups gathers, for every output element,
// the input values over the reduced dims (in row-major order, so a position is
// the flattened index); for_each_line gathers the values along one dim for the
// ops whose outputs keep it (cumsum, cumprod, sort, topk). Shape functions have
// already wrapped dims and made dim lists explicit.
#include "kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

namespace axle::reference {

using namespace axle::plugin;

namespace {

// ---- sum, mean
template <typename Acc>
axle_status reduce(const axle_kernel_call* c, bool mean) {
  const axle_tensor_view& in = arg_tensor(c, 0);
  const axle_tensor_view& out = c->outputs[0];
  std::vector<bool> reduced(static_cast<size_t>(in.ndim), arg_is_none(c, 1));
  if (!arg_is_none(c, 1)) {
    const axle_value& dims = c->args[1];
    if (dims.u.ints.count == 0) reduced.assign(reduced.size(), true);
    for (int64_t k = 0; k < dims.u.ints.count; ++k) reduced[static_cast<size_t>(dims.u.ints.items[k])] = true;
  }
  // Accumulator: contiguous over the kept dims, in input-dim order.
  std::vector<int64_t> acc_strides(static_cast<size_t>(in.ndim), 0);
  int64_t groups = 1, count = 1;
  for (int32_t d = in.ndim - 1; d >= 0; --d) {
    if (reduced[static_cast<size_t>(d)]) {
      count *= in.sizes[d];
    } else {
      acc_strides[static_cast<size_t>(d)] = groups;
      groups *= in.sizes[d];
    }
  }
  std::vector<Acc> acc(static_cast<size_t>(groups), Acc{});
  const axle_dtype acc_dtype = std::is_same_v<Acc, double> ? AXLE_DTYPE_FLOAT64 : AXLE_DTYPE_INT64;
  const axle_tensor_view acc_in = {sizeof(axle_tensor_view), acc.data(), acc_dtype, in.ndim, in.sizes,
                                   acc_strides.data(),       0,          0};
  for_each_element<2>(in.ndim, in.sizes, {&acc_in, &in},
                      [&](char** p) { *reinterpret_cast<Acc*>(p[0]) += load_as<Acc>(p[1], in.dtype); });
  if (mean) {
    for (Acc& a : acc)
      a = count == 0 ? std::numeric_limits<Acc>::quiet_NaN() : static_cast<Acc>(static_cast<double>(a) / count);
  }
  // The output holds the kept dims in order (plus size-1 dims when keepdim): the
  // accumulator viewed with the output's sizes is contiguous.
  std::vector<int64_t> acc_out_strides(static_cast<size_t>(out.ndim));
  int64_t s = 1;
  for (int32_t d = out.ndim - 1; d >= 0; --d) {
    acc_out_strides[static_cast<size_t>(d)] = s;
    s *= out.sizes[d];
  }
  const axle_tensor_view acc_out = {sizeof(axle_tensor_view), acc.data(), acc_dtype, out.ndim, out.sizes,
                                    acc_out_strides.data(),   0,          0};
  map_elements<Acc, 1>(out, {&acc_out}, [](Acc v) { return v; });
  return AXLE_OK;
}

axle_status sum(void*, const axle_kernel_call* c) {
  return is_floating(c->outputs[0].dtype) ? reduce<double>(c, false) : reduce<int64_t>(c, false);
}

axle_status mean(void*, const axle_kernel_call* c) {
  if (!is_floating(c->outputs[0].dtype)) return fail(c, AXLE_ERROR_DTYPE, "mean: output must be floating");
  return reduce<double>(c, true);
}

// ------------------------------------------------------------ loops
using Mask = std::vector<bool>;

Mask all_dims(const axle_tensor_view& in) { return Mask(static_cast<size_t>(in.ndim), true); }
Mask one_dim(const axle_tensor_view& in, int64_t dim) {
  Mask m(static_cast<size_t>(in.ndim), false);
  if (in.ndim > 0) m[static_cast<size_t>(dim)] = true;
  return m;
}
// A dim list argument (empty: every dim).
Mask dim_list(const axle_kernel_call* c, int i, const axle_tensor_view& in) {
  const axle_value& v = c->args[i];
  if (v.tag != AXLE_VALUE_INT_LIST || v.u.ints.count == 0) return all_dims(in);
  Mask m(static_cast<size_t>(in.ndim), false);
  for (int64_t k = 0; k < v.u.ints.count; ++k) m[static_cast<size_t>(v.u.ints.items[k])] = true;
  return m;
}

// Calls f(values, out_ptrs) once per output element: `values` are the input's
// elements over the reduced dims (row-major), out_ptrs[k] points into outs[k].
// Every output has the kept dims in order (plus size-1 reduced dims when keepdim).
template <typename T, size_t N, typename F>
void reduce_groups(const axle_tensor_view& in, const Mask& reduced, const std::array<const axle_tensor_view*, N>& outs,
                   F&& f) {
  const axle_tensor_view& out = *outs[0];
  const bool keepdim = out.ndim == in.ndim && in.ndim > 0;
  std::vector<int64_t> kept_strides, red_sizes, red_strides;
  const int64_t esize = static_cast<int64_t>(dtype_size(in.dtype));
  for (int32_t d = 0; d < in.ndim; ++d) {
    if (reduced[static_cast<size_t>(d)]) {
      red_sizes.push_back(in.sizes[d]);
      red_strides.push_back(in.strides[d] * esize);
      if (keepdim) kept_strides.push_back(0);
    } else {
      kept_strides.push_back(in.strides[d]);
    }
  }
  // The input seen through the output's shape: each element is a group's first value.
  const axle_tensor_view group = {sizeof(axle_tensor_view), in.data, in.dtype, out.ndim, out.sizes,
                                  kept_strides.data(),      0,       0};
  int64_t count = 1;
  for (int64_t s : red_sizes) count *= s;
  std::vector<T> values(static_cast<size_t>(count));
  std::vector<int64_t> index(red_sizes.size());
  std::array<const axle_tensor_view*, N + 1> views;
  for (size_t k = 0; k < N; ++k) views[k] = outs[k];
  views[N] = &group;
  for_each_element<N + 1>(out.ndim, out.sizes, views, [&](char** p) {
    const char* q = p[N];
    std::fill(index.begin(), index.end(), 0);
    for (int64_t i = 0; i < count; ++i) {
      values[static_cast<size_t>(i)] = load_as<T>(q, in.dtype);
      for (size_t d = red_sizes.size(); d-- > 0;) {  // odometer, last dim fastest
        q += red_strides[d];
        if (++index[d] < red_sizes[d]) break;
        q -= red_strides[d] * red_sizes[d];
        index[d] = 0;
      }
    }
    f(values, p);
  });
}

// Calls f(line, out_ptrs, out_steps) for every line of `in` along `dim`: the
// values along it, a pointer to each output line's first element and the byte
// step along the dim in each output. Outputs match in's shape except along dim.
template <typename T, size_t N, typename F>
void for_each_line(const axle_tensor_view& in, int64_t dim, const std::array<const axle_tensor_view*, N>& outs, F&& f) {
  const bool scalar = in.ndim == 0;
  const int64_t n = scalar ? 1 : in.sizes[dim];
  const int64_t step = scalar ? 0 : in.strides[dim] * static_cast<int64_t>(dtype_size(in.dtype));
  std::array<int64_t, N> out_steps;
  std::vector<int64_t> rest_sizes;
  std::vector<std::vector<int64_t>> rest_strides(N + 1);
  std::vector<axle_tensor_view> rest(N + 1);
  for (int32_t d = 0; d < in.ndim; ++d) {
    if (d == dim) continue;
    rest_sizes.push_back(in.sizes[d]);
    for (size_t k = 0; k < N; ++k) rest_strides[k].push_back(outs[k]->strides[d]);
    rest_strides[N].push_back(in.strides[d]);
  }
  std::array<const axle_tensor_view*, N + 1> views;
  for (size_t k = 0; k <= N; ++k) {
    const axle_tensor_view& v = k < N ? *outs[k] : in;
    if (k < N) out_steps[k] = scalar ? 0 : v.strides[dim] * static_cast<int64_t>(dtype_size(v.dtype));
    rest[k] = {sizeof(axle_tensor_view), v.data, v.dtype, static_cast<int32_t>(rest_sizes.size()), rest_sizes.data(),
               rest_strides[k].data(),   0,      0};
    views[k] = &rest[k];
  }
  std::vector<T> line(static_cast<size_t>(n));
  for_each_element<N + 1>(static_cast<int32_t>(rest_sizes.size()), rest_sizes.data(), views, [&](char** p) {
    const char* q = p[N];
    for (int64_t i = 0; i < n; ++i, q += step) line[static_cast<size_t>(i)] = load_as<T>(q, in.dtype);
    f(line, p, out_steps.data());
  });
}

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return std::isnan(v);
  else
    return false;
}
// Wrapping integer arithmetic (as torch's int64 overflow), exact float arithmetic.
template <typename T>
T mul(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return a * b;
  else
    return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
template <typename T>
T add(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return a + b;
  else
    return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
// NaN is the greatest value (sort order) / the extreme of max and min (propagation).
template <typename T>
bool nan_less(T a, T b) {
  return is_nan(b) ? !is_nan(a) : a < b;
}

// Dispatches a kernel body on the compute type for `d`.
template <template <typename> class K, typename... Args>
axle_status by_type(axle_dtype d, Args&&... args) {
  return is_floating(d) ? K<double>::run(std::forward<Args>(args)...) : K<int64_t>::run(std::forward<Args>(args)...);
}

// ------------------------------------------------------------ prod
// Inputs are converted to the result dtype first (as torch's dtype= argument).
template <typename T>
struct Prod {
  static axle_status run(const axle_kernel_call* c, const Mask& m) {
    const axle_tensor_view& out = c->outputs[0];
    reduce_groups<T, 1>(arg_tensor(c, 0), m, {&out}, [&](const std::vector<T>& v, char** p) {
      T acc = 1;
      for (T x : v) acc = mul(acc, x);
      store_from<T>(p[0], out.dtype, acc);
    });
    return AXLE_OK;
  }
};

// ------------------------------------------------------------ max / min family
// The position of the first extreme (max when `largest`); NaN wins at once.
template <typename T>
size_t extreme(const std::vector<T>& v, bool largest) {
  size_t best = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (is_nan(v[i])) return i;
    if (largest ? v[i] > v[best] : v[i] < v[best]) best = i;
  }
  return best;
}

enum class Out { Value, Index, Both };
template <typename T>
struct Extreme {
  static axle_status run(const axle_kernel_call* c, const Mask& m, bool largest, Out what) {
    const axle_tensor_view& in = arg_tensor(c, 0);
    const auto body = [&](const std::vector<T>& v, char** p) {
      const size_t i = extreme(v, largest);
      if (what != Out::Index) store_from<T>(p[0], c->outputs[0].dtype, v[i]);
      if (what != Out::Value)
        store_from<int64_t>(p[what == Out::Both ? 1 : 0], AXLE_DTYPE_INT64, static_cast<int64_t>(i));
    };
    if (what == Out::Both)
      reduce_groups<T, 2>(in, m, {&c->outputs[0], &c->outputs[1]}, body);
    else
      reduce_groups<T, 1>(in, m, {&c->outputs[0]}, body);
    return AXLE_OK;
  }
};
template <bool Largest>
axle_status amax(void*, const axle_kernel_call* c) {
  const axle_tensor_view& in = arg_tensor(c, 0);
  return by_type<Extreme>(in.dtype, c, dim_list(c, 1, in), Largest, Out::Value);
}
template <bool Largest>
axle_status max_all(void*, const axle_kernel_call* c) {
  const axle_tensor_view& in = arg_tensor(c, 0);
  return by_type<Extreme>(in.dtype, c, all_dims(in), Largest, Out::Value);
}
template <bool Largest>
axle_status max_dim(void*, const axle_kernel_call* c) {
  const axle_tensor_view& in = arg_tensor(c, 0);
  return by_type<Extreme>(in.dtype, c, one_dim(in, arg_int(c, 1)), Largest, Out::Both);
}
template <bool Largest>
axle_status argmax(void*, const axle_kernel_call* c) {
  const axle_tensor_view& in = arg_tensor(c, 0);
  return by_type<Extreme>(in.dtype, c, arg_is_none(c, 1) ? all_dims(in) : one_dim(in, arg_int(c, 1)), Largest,
                          Out::Index);
}

// ------------------------------------------------------------ var / std (self, dims, correction, keepdim)
template <bool Sqrt>
axle_status var(void*, const axle_kernel_call* c) {
  const axle_tensor_view& in = arg_tensor(c, 0);
  const double correction = static_cast<double>(arg_int(c, 2));
  reduce_groups<double, 1>(in, dim_list(c, 1, in), {&c->outputs[0]}, [&](const std::vector<double>& v, char** p) {
    double mean = 0, ss = 0;
    for (double x : v) mean += x;
    mean /= static_cast<double>(v.size());
    for (double x : v) ss += (x - mean) * (x - mean);
    const double r = ss / std::max(0.0, static_cast<double>(v.size()) - correction);
    store_from<double>(p[0], c->outputs[0].dtype, Sqrt ? std::sqrt(r) : r);
  });
  return AXLE_OK;
}

// ------------------------------------------------------------ norm (self, p, dims, keepdim)
axle_status norm(void*, const axle_kernel_call* c) {
  const axle_tensor_view& in = arg_tensor(c, 0);
  const double ord = arg_double(c, 1);
  reduce_groups<double, 1>(in, dim_list(c, 2, in), {&c->outputs[0]}, [&](const std::vector<double>& v, char** p) {
    double r = 0;
    if (v.empty()) {
      r = 0;
    } else if (std::isinf(ord)) {
      r = std::fabs(v[0]);
      for (double x : v) {
        const double a = std::fabs(x);
        if (std::isnan(a) || std::isnan(r))
          r = std::numeric_limits<double>::quiet_NaN();
        else
          r = ord > 0 ? std::max(r, a) : std::min(r, a);
      }
    } else if (ord == 0) {
      for (double x : v) r += x != 0 ? 1 : 0;
    } else if (ord == 1) {
      for (double x : v) r += std::fabs(x);
    } else if (ord == 2) {
      for (double x : v) r += x * x;
      r = std::sqrt(r);
    } else {
      for (double x : v) r += std::pow(std::fabs(x), ord);
      r = std::pow(r, 1.0 / ord);
    }
    store_from<double>(p[0], c->outputs[0].dtype, r);
  });
  return AXLE_OK;
}

// ------------------------------------------------------------ logsumexp (self, dims, keepdim)
// max + log(sum(exp(x - max))), an infinite max replaced by 0 (as torch).
axle_status logsumexp(void*, const axle_kernel_call* c) {
  const axle_tensor_view& in = arg_tensor(c, 0);
  reduce_groups<double, 1>(in, dim_list(c, 1, in), {&c->outputs[0]}, [&](const std::vector<double>& v, char** p) {
    double m = v.empty() ? 0 : v[extreme(v, true)];
    if (std::isinf(m)) m = 0;
    double s = 0;
    for (double x : v) s += std::exp(x - m);
    store_from<double>(p[0], c->outputs[0].dtype, std::log(s) + m);
  });
  return AXLE_OK;
}

// ------------------------------------------------------------ all / any / count_nonzero
template <bool All>
axle_status all_impl(const axle_kernel_call* c, const Mask& m) {
  reduce_groups<bool, 1>(arg_tensor(c, 0), m, {&c->outputs[0]}, [&](const std::vector<bool>& v, char** p) {
    bool r = All;
    for (bool x : v) r = All ? (r && x) : (r || x);
    store_from<int64_t>(p[0], c->outputs[0].dtype, r ? 1 : 0);
  });
  return AXLE_OK;
}
template <bool All>
axle_status all(void*, const axle_kernel_call* c) {
  return all_impl<All>(c, all_dims(arg_tensor(c, 0)));
}
template <bool All>
axle_status all_dim(void*, const axle_kernel_call* c) {
  return all_impl<All>(c, one_dim(arg_tensor(c, 0), arg_int(c, 1)));
}

axle_status count_nonzero(void*, const axle_kernel_call* c) {
  const axle_tensor_view& in = arg_tensor(c, 0);
  reduce_groups<bool, 1>(in, dim_list(c, 1, in), {&c->outputs[0]}, [&](const std::vector<bool>& v, char** p) {
    store_from<int64_t>(p[0], AXLE_DTYPE_INT64, static_cast<int64_t>(std::count(v.begin(), v.end(), true)));
  });
  return AXLE_OK;
}

// A product into bool (prod(..., dtype=bool)) is all().
axle_status prod_impl(const axle_kernel_call* c, const Mask& m) {
  if (c->outputs[0].dtype == AXLE_DTYPE_BOOL) return all_impl<true>(c, m);
  return by_type<Prod>(c->outputs[0].dtype, c, m);
}
axle_status prod(void*, const axle_kernel_call* c) { return prod_impl(c, all_dims(arg_tensor(c, 0))); }
axle_status prod_dim(void*, const axle_kernel_call* c) {
  return prod_impl(c, one_dim(arg_tensor(c, 0), arg_int(c, 1)));
}

// ------------------------------------------------------------ cumsum / cumprod (self, dim, dtype)
template <typename T>
struct Cumulative {
  static axle_status run(const axle_kernel_call* c, bool product) {
    const axle_tensor_view& out = c->outputs[0];
    const auto line = [&](const std::vector<T>& v, char** p, const int64_t* step) {
      T acc = product ? 1 : 0;
      char* q = p[0];
      for (T x : v) {
        acc = product ? mul(acc, x) : add(acc, x);
        store_from<T>(q, out.dtype, acc);
        q += step[0];
      }
    };
    for_each_line<T, 1>(arg_tensor(c, 0), arg_int(c, 1), {&out}, line);
    return AXLE_OK;
  }
};
template <bool Product>
axle_status cumulative(void*, const axle_kernel_call* c) {
  return by_type<Cumulative>(c->outputs[0].dtype, c, Product);
}

// ------------------------------------------------------------ sort / topk
// Writes the first `k` of the stably sorted line (values and indices).
template <typename T>
struct Sort {
  static axle_status run(const axle_kernel_call* c, int64_t dim, bool descending, int64_t k) {
    const axle_tensor_view& values = c->outputs[0];
    const axle_tensor_view& indices = c->outputs[1];
    std::vector<int64_t> order;
    for_each_line<T, 2>(arg_tensor(c, 0), dim, {&values, &indices},
                        [&](const std::vector<T>& v, char** p, const int64_t* step) {
                          order.resize(v.size());
                          std::iota(order.begin(), order.end(), int64_t{0});
                          std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
                            return descending ? nan_less(v[static_cast<size_t>(b)], v[static_cast<size_t>(a)])
                                              : nan_less(v[static_cast<size_t>(a)], v[static_cast<size_t>(b)]);
                          });
                          const int64_t n = std::min<int64_t>(k, static_cast<int64_t>(v.size()));
                          for (int64_t i = 0; i < n; ++i) {
                            const int64_t j = order[static_cast<size_t>(i)];
                            store_from<T>(p[0] + i * step[0], values.dtype, v[static_cast<size_t>(j)]);
                            store_from<int64_t>(p[1] + i * step[1], AXLE_DTYPE_INT64, j);
                          }
                        });
    return AXLE_OK;
  }
};
axle_status sort(void*, const axle_kernel_call* c) {
  const axle_tensor_view& in = arg_tensor(c, 0);
  return by_type<Sort>(in.dtype, c, arg_int(c, 1), arg_bool(c, 2), std::numeric_limits<int64_t>::max());
}
axle_status topk(void*, const axle_kernel_call* c) {
  const axle_tensor_view& in = arg_tensor(c, 0);
  // A 0-d input gives its value whatever k (0 or 1), as torch.
  return by_type<Sort>(in.dtype, c, arg_int(c, 2), arg_bool(c, 3), in.ndim == 0 ? int64_t{1} : arg_int(c, 1));
}

const KernelEntry kReductionKernels[] = {
    {"sum.dim_IntList", &sum, AXLE_HERE},
    {"mean.dim", &mean, AXLE_HERE},
    {"prod", &prod, AXLE_HERE},
    {"prod.dim_int", &prod_dim, AXLE_HERE},
    {"amax", &amax<true>, AXLE_HERE},
    {"amin", &amax<false>, AXLE_HERE},
    {"max", &max_all<true>, AXLE_HERE},
    {"min", &max_all<false>, AXLE_HERE},
    {"max.dim", &max_dim<true>, AXLE_HERE},
    {"min.dim", &max_dim<false>, AXLE_HERE},
    {"argmax", &argmax<true>, AXLE_HERE},
    {"argmin", &argmax<false>, AXLE_HERE},
    {"var.correction", &var<false>, AXLE_HERE},
    {"std.correction", &var<true>, AXLE_HERE},
    {"norm.ScalarOpt_dim", &norm, AXLE_HERE},
    {"logsumexp", &logsumexp, AXLE_HERE},
    {"all", &all<true>, AXLE_HERE},
    {"any", &all<false>, AXLE_HERE},
    {"all.dim", &all_dim<true>, AXLE_HERE},
    {"any.dim", &all_dim<false>, AXLE_HERE},
    {"count_nonzero.dim_IntList", &count_nonzero, AXLE_HERE},
    {"cumsum", &cumulative<false>, AXLE_HERE},
    {"cumprod", &cumulative<true>, AXLE_HERE},
    {"sort", &sort, AXLE_HERE},
    {"topk", &topk, AXLE_HERE},
};

}  // namespace

axle_status register_reduction(const axle_registrar* r) { return register_kernels(r, "cpu", kReductionKernels); }

}  // namespace axle::reference
