// Header-only C++ helpers over the axle plugin C ABI: dtype traits, float16 and
// bfloat16 conversion, boxed-argument accessors, and a strided, broadcasting
// N-d loop that makes a dtype-generic elementwise kernel about 20 lines.
// Depends on axle_plugin.h and the C++ standard library only.
#pragma once

#include <axle/plugin/axle_plugin.h>
#include <axle/plugin/layout.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace axle::plugin {

// ------------------------------------------------------------ 16-bit floats
inline float fp16_to_float(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      exp = 127 - 15 + 1;
      while ((mant & 0x400u) == 0) {
        mant <<= 1;
        --exp;
      }
      mant &= 0x3ffu;
      bits = sign | (exp << 23) | (mant << 13);
    }
  } else if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Round to nearest even, overflow to inf, NaN stays NaN (as PyTorch/c10::Half).
inline uint16_t float_to_fp16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) return static_cast<uint16_t>(sign | (abs > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520 rounds to inf
  if (abs < 0x38800000u) {                                               // subnormal or zero in fp16
    if (abs < 0x33000000u) return sign;                                  // < 2^-25 rounds to zero
    const uint32_t e = abs >> 23;
    const uint32_t m = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - e;  // value / 2^-24 == m * 2^(e - 126)
    uint32_t half = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1);
    const uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t h = ((abs >> 13) - (112u << 10));
  const uint32_t rem = abs & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

inline float bf16_to_float(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline uint16_t float_to_bf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  const uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>((x + rounding) >> 16);
}

// ------------------------------------------------------------ dtype traits
inline size_t dtype_size(axle_dtype d) {
  switch (d) {
    case AXLE_DTYPE_FLOAT64:
    case AXLE_DTYPE_INT64: return 8;
    case AXLE_DTYPE_FLOAT32:
    case AXLE_DTYPE_INT32: return 4;
    case AXLE_DTYPE_FLOAT16:
    case AXLE_DTYPE_BFLOAT16:
    case AXLE_DTYPE_INT16: return 2;
    default: return 1;
  }
}
inline bool is_floating(axle_dtype d) {
  return d == AXLE_DTYPE_FLOAT32 || d == AXLE_DTYPE_FLOAT64 || d == AXLE_DTYPE_FLOAT16 || d == AXLE_DTYPE_BFLOAT16;
}
inline bool is_integral(axle_dtype d) { return !is_floating(d) && d != AXLE_DTYPE_BOOL; }
// PyTorch's ScalarType names ("Float", "Half", "Long", ...), as its errors spell
// them: "\"addmm\" not implemented for 'Half'".
inline const char* torch_type_name(axle_dtype d) {
  switch (d) {
    case AXLE_DTYPE_FLOAT32: return "Float";
    case AXLE_DTYPE_FLOAT64: return "Double";
    case AXLE_DTYPE_FLOAT16: return "Half";
    case AXLE_DTYPE_BFLOAT16: return "BFloat16";
    case AXLE_DTYPE_INT8: return "Char";
    case AXLE_DTYPE_UINT8: return "Byte";
    case AXLE_DTYPE_INT16: return "Short";
    case AXLE_DTYPE_INT32: return "Int";
    case AXLE_DTYPE_INT64: return "Long";
    default: return "Bool";
  }
}

// Load any dtype as the compute type T (double, int64_t or bool) and store back.
template <typename T>
inline T load_as(const void* p, axle_dtype d) {
  switch (d) {
    case AXLE_DTYPE_FLOAT32: return static_cast<T>(*static_cast<const float*>(p));
    case AXLE_DTYPE_FLOAT64: return static_cast<T>(*static_cast<const double*>(p));
    case AXLE_DTYPE_FLOAT16: return static_cast<T>(fp16_to_float(*static_cast<const uint16_t*>(p)));
    case AXLE_DTYPE_BFLOAT16: return static_cast<T>(bf16_to_float(*static_cast<const uint16_t*>(p)));
    case AXLE_DTYPE_INT8: return static_cast<T>(*static_cast<const int8_t*>(p));
    case AXLE_DTYPE_UINT8: return static_cast<T>(*static_cast<const uint8_t*>(p));
    case AXLE_DTYPE_INT16: return static_cast<T>(*static_cast<const int16_t*>(p));
    case AXLE_DTYPE_INT32: return static_cast<T>(*static_cast<const int32_t*>(p));
    case AXLE_DTYPE_INT64: return static_cast<T>(*static_cast<const int64_t*>(p));
    case AXLE_DTYPE_BOOL: return static_cast<T>(*static_cast<const uint8_t*>(p) != 0);
    default: return T{};
  }
}

// Float -> integer conversion truncates toward zero as PyTorch does; values out of
// range are undefined in PyTorch too, we wrap through int64 to stay defined.
template <typename I>
inline I float_to_int(double v) {
  if (!(v == v)) return I{0};
  if (v >= 9.2233720368547758e18) return static_cast<I>(INT64_MAX);
  if (v <= -9.2233720368547758e18) return static_cast<I>(INT64_MIN);
  return static_cast<I>(static_cast<int64_t>(v));
}

template <typename T>
inline void store_from(void* p, axle_dtype d, T v) {
  constexpr bool from_float = std::is_floating_point_v<T>;
  switch (d) {
    case AXLE_DTYPE_FLOAT32: *static_cast<float*>(p) = static_cast<float>(v); break;
    case AXLE_DTYPE_FLOAT64: *static_cast<double*>(p) = static_cast<double>(v); break;
    case AXLE_DTYPE_FLOAT16: *static_cast<uint16_t*>(p) = float_to_fp16(static_cast<float>(v)); break;
    case AXLE_DTYPE_BFLOAT16: *static_cast<uint16_t*>(p) = float_to_bf16(static_cast<float>(v)); break;
    case AXLE_DTYPE_INT8:
      *static_cast<int8_t*>(p) = from_float ? float_to_int<int8_t>(double(v)) : static_cast<int8_t>(v);
      break;
    case AXLE_DTYPE_UINT8:
      *static_cast<uint8_t*>(p) = from_float ? float_to_int<uint8_t>(double(v)) : static_cast<uint8_t>(v);
      break;
    case AXLE_DTYPE_INT16:
      *static_cast<int16_t*>(p) = from_float ? float_to_int<int16_t>(double(v)) : static_cast<int16_t>(v);
      break;
    case AXLE_DTYPE_INT32:
      *static_cast<int32_t*>(p) = from_float ? float_to_int<int32_t>(double(v)) : static_cast<int32_t>(v);
      break;
    case AXLE_DTYPE_INT64:
      *static_cast<int64_t*>(p) = from_float ? float_to_int<int64_t>(double(v)) : static_cast<int64_t>(v);
      break;
    case AXLE_DTYPE_BOOL: *static_cast<uint8_t*>(p) = (v != T{}) ? 1 : 0; break;
    default: break;
  }
}

// ------------------------------------------------------------ boxed arguments
inline const axle_tensor_view& arg_tensor(const axle_kernel_call* c, int i) { return *c->args[i].u.tensor; }
inline bool arg_is_none(const axle_kernel_call* c, int i) { return c->args[i].tag == AXLE_VALUE_NONE; }
inline int64_t arg_int(const axle_kernel_call* c, int i) {
  const axle_value& v = c->args[i];
  return v.tag == AXLE_VALUE_DOUBLE ? static_cast<int64_t>(v.u.f) : v.u.i;
}
inline double arg_double(const axle_kernel_call* c, int i) {
  const axle_value& v = c->args[i];
  return v.tag == AXLE_VALUE_DOUBLE ? v.u.f : static_cast<double>(v.u.i);
}
inline bool arg_bool(const axle_kernel_call* c, int i) { return c->args[i].u.i != 0; }
inline bool arg_scalar_is_floating(const axle_kernel_call* c, int i) { return c->args[i].tag == AXLE_VALUE_DOUBLE; }
// An int[] argument's values (empty for None).
inline std::vector<int64_t> arg_ints(const axle_kernel_call* c, int i) {
  const axle_value& v = c->args[i];
  if (v.tag != AXLE_VALUE_INT_LIST) return {};
  return std::vector<int64_t>(v.u.ints.items, v.u.ints.items + v.u.ints.count);
}

// A configuration value for this call as JSON text (`plugin` NULL: a global key
// such as "matmul_precision"; else plugins.<plugin>.options.<key>), or NULL when
// unset or the host has no get_option.
inline const char* option(const axle_host_api* h, const char* plugin, const char* key) {
  const bool has = h && h->struct_size > offsetof(axle_host_api, get_option) && h->get_option;
  return has ? h->get_option(plugin, key) : nullptr;
}
inline const char* option(const axle_kernel_call* c, const char* plugin, const char* key) {
  return option(c->host, plugin, key);
}
// Whether global option `key` is exactly the JSON text `json` ("true", "\"high\"").
inline bool option_is(const axle_kernel_call* c, const char* key, const char* json) {
  const char* v = option(c, nullptr, key);
  return v && std::strcmp(v, json) == 0;
}

// Report an error status with a message through the host.
inline axle_status fail(const axle_kernel_call* c, axle_status status, const std::string& message) {
  if (c->host && c->host->set_error) c->host->set_error(c->call_context, message.c_str());
  return status;
}

// Decline the call, saying why ("float64 is not supported by oneDNN"): returns
// AXLE_DECLINED, the reason reaches `axle explain`, trace mode, `axle check` and
// the error raised when every candidate declines. Through set_error on a host
// older than ABI 1.4 (which takes that message as the reason).
inline axle_status decline(const axle_kernel_call* c, const std::string& why) {
  const axle_host_api* h = c->host;
  if (h && h->struct_size > offsetof(axle_host_api, set_decline_reason) && h->set_decline_reason)
    h->set_decline_reason(c->call_context, why.c_str());
  else if (h && h->set_error)
    h->set_error(c->call_context, why.c_str());
  return AXLE_DECLINED;
}

// The message of an index outside its dimension, as torch words it and every
// plugin reports it (with AXLE_ERROR_INDEX): "index_select(): index 5 is out
// of bounds for dimension 0 with size 5".
inline std::string index_out_of_bounds(const char* op, int64_t index, int64_t dim, int64_t size) {
  return std::string(op) + ": index " + std::to_string(index) + " is out of bounds for dimension " +
         std::to_string(dim) + " with size " + std::to_string(size);
}

// ------------------------------------------------------------ host scalars (ABI 1.4)
// Whether view `v` is a 0-dim tensor in host memory (AXLE_VIEW_HOST_SCALAR): a
// kernel registered with AXLE_KERNEL_HOST_SCALARS reads it with host_scalar and
// passes the value to the device by value.
inline bool is_host_scalar(const axle_tensor_view& v) {
  return v.struct_size > offsetof(axle_tensor_view, flags) && (v.flags & AXLE_VIEW_HOST_SCALAR) != 0;
}
// The value of a host scalar view (any dtype) as T: double, int64_t or bool.
template <typename T>
inline T host_scalar(const axle_tensor_view& v) {
  return load_as<T>(v.data, v.dtype);
}

// ------------------------------------------------------------ views
inline int64_t numel(const axle_tensor_view& v) {
  int64_t n = 1;
  for (int32_t d = 0; d < v.ndim; ++d) n *= v.sizes[d];
  return n;
}
inline bool is_contiguous(const axle_tensor_view& v) {
  int64_t expected = 1;
  for (int32_t d = v.ndim - 1; d >= 0; --d) {
    if (v.sizes[d] != 1 && v.strides[d] != expected) return false;
    expected *= v.sizes[d];
  }
  return true;
}

// The same memory, shape, strides and dtype.
inline bool same_view(const axle_tensor_view& a, const axle_tensor_view& b) {
  if (a.data != b.data || a.ndim != b.ndim || a.dtype != b.dtype) return false;
  for (int32_t d = 0; d < a.ndim; ++d)
    if (a.sizes[d] != b.sizes[d] || a.strides[d] != b.strides[d]) return false;
  return true;
}
// Whether the byte ranges the two views span intersect (empty views never do;
// strides are never negative).
inline bool views_overlap(const axle_tensor_view& a, const axle_tensor_view& b) {
  auto span = [](const axle_tensor_view& v, const char** lo, const char** hi) {
    int64_t last = 0;
    for (int32_t d = 0; d < v.ndim; ++d) last += (v.sizes[d] - 1) * v.strides[d];
    *lo = static_cast<const char*>(v.data);
    *hi = *lo + (last + 1) * static_cast<int64_t>(dtype_size(v.dtype));
  };
  if (numel(a) == 0 || numel(b) == 0) return false;
  const char *alo, *ahi, *blo, *bhi;
  span(a, &alo, &ahi);
  span(b, &blo, &bhi);
  return alo < bhi && blo < ahi;
}

// ------------------------------------------------------------ strided N-d loop

// Whether the loops below can run over rank `ndim` with these operands: every
// rank in [0, kMaxDims]. The loops themselves check only `ndim` (their arrays
// are indexed by the output's dims; one unsigned compare on every call).
template <size_t N>
inline bool ranks_fit(int32_t ndim, const std::array<const axle_tensor_view*, N>& views) {
  if (static_cast<uint32_t>(ndim) > static_cast<uint32_t>(kMaxDims)) return false;
  for (size_t k = 0; k < N; ++k)
    if (static_cast<uint32_t>(views[k]->ndim) > static_cast<uint32_t>(kMaxDims)) return false;
  return true;
}

// Iterates over every index of `sizes` (the output shape) and calls
// fn(char* ptrs[N]) with one byte pointer per operand. Operand k is viewed
// through `views[k]`, right-aligned to the output shape; a dimension of size 1
// (or missing) broadcasts with stride 0. The innermost dimension runs as a
// tight loop. The loop state is in fixed arrays of kMaxDims entries indexed by
// the output's dims: when `ndim` is negative or above kMaxDims (axle makes no
// such tensor) it calls nothing, writes nothing and returns false; a kernel
// that may see one checks ranks_fit() (every operand's rank too) first and
// reports the error.
template <size_t N, typename Fn>
inline bool for_each_element(int32_t ndim, const int64_t* sizes, const std::array<const axle_tensor_view*, N>& views,
                             Fn&& fn) {
  if (static_cast<uint32_t>(ndim) > static_cast<uint32_t>(kMaxDims)) return false;
  int64_t strides[N][kMaxDims];  // byte strides aligned to the output
  char* base[N];
  for (size_t k = 0; k < N; ++k) {
    const axle_tensor_view& v = *views[k];
    const int64_t esize = static_cast<int64_t>(dtype_size(v.dtype));
    const int32_t lead = ndim - v.ndim;
    for (int32_t d = 0; d < ndim; ++d) {
      const int32_t vd = d - lead;
      strides[k][d] = (vd < 0 || v.sizes[vd] == 1) ? 0 : v.strides[vd] * esize;
    }
    base[k] = static_cast<char*>(v.data);
  }
  for (int32_t d = 0; d < ndim; ++d)
    if (sizes[d] == 0) return true;
  if (ndim == 0) {
    fn(base);
    return true;
  }
  int64_t index[kMaxDims] = {0};
  char* ptrs[N];
  const int32_t inner = ndim - 1;
  const int64_t inner_size = sizes[inner];
  for (;;) {
    for (size_t k = 0; k < N; ++k) ptrs[k] = base[k];
    for (int64_t i = 0; i < inner_size; ++i) {
      fn(ptrs);
      for (size_t k = 0; k < N; ++k) ptrs[k] += strides[k][inner];
    }
    int32_t d = inner - 1;
    for (; d >= 0; --d) {  // odometer over the outer dimensions
      for (size_t k = 0; k < N; ++k) base[k] += strides[k][d];
      if (++index[d] < sizes[d]) break;
      for (size_t k = 0; k < N; ++k) base[k] -= strides[k][d] * sizes[d];
      index[d] = 0;
    }
    if (d < 0) return true;
  }
}

// v rounded to the floating dtype d (float32, float16, bfloat16), as a cast would.
inline double round_to(double v, axle_dtype d) {
  switch (d) {
    case AXLE_DTYPE_FLOAT32: return static_cast<float>(v);
    case AXLE_DTYPE_FLOAT16: return fp16_to_float(float_to_fp16(static_cast<float>(v)));
    case AXLE_DTYPE_BFLOAT16: return bf16_to_float(float_to_bf16(static_cast<float>(v)));
    default: return v;
  }
}

// Computes out = f(in...) elementwise in compute type T (double, int64_t or bool):
// every input is loaded and converted to T, the result stored in out's dtype.
// With a floating output narrower than double, inputs of another dtype are first
// rounded to the output dtype, as PyTorch casts operands to the common dtype.
// False (nothing written) where for_each_element declines the ranks.
template <typename T, size_t N, typename F>
inline bool map_elements(const axle_tensor_view& out, const std::array<const axle_tensor_view*, N>& in, F&& f) {
  std::array<const axle_tensor_view*, N + 1> views;
  views[0] = &out;
  for (size_t k = 0; k < N; ++k) views[k + 1] = in[k];
  const axle_dtype od = out.dtype;
  std::array<axle_dtype, N> ids;
  bool round_inputs = false;
  for (size_t k = 0; k < N; ++k) {
    ids[k] = in[k]->dtype;
    round_inputs |= ids[k] != od;
  }
  round_inputs = round_inputs && std::is_same_v<T, double> && is_floating(od) && od != AXLE_DTYPE_FLOAT64;
  auto load = [&](const char* p, size_t k) {
    if constexpr (std::is_same_v<T, double>) {
      const double v = load_as<double>(p, ids[k]);
      return round_inputs && ids[k] != od ? round_to(v, od) : v;
    } else {
      return load_as<T>(p, ids[k]);
    }
  };
  return for_each_element<N + 1>(out.ndim, out.sizes, views, [&](char** p) {
    if constexpr (N == 1) {
      store_from<T>(p[0], od, f(load(p[1], 0)));
    } else if constexpr (N == 2) {
      store_from<T>(p[0], od, f(load(p[1], 0), load(p[2], 1)));
    } else {
      store_from<T>(p[0], od, f(load(p[1], 0), load(p[2], 1), load(p[3], 2)));
    }
  });
}

// ------------------------------------------------------------ ABI tables by field name
// A zeroed ABI struct with struct_size set: fill the fields by name (C++17 has
// no designated initializers), e.g.
//   const axle_device_interface kMyDevice = [] {
//     auto d = axle::plugin::abi_struct<axle_device_interface>();
//     d.type_name = "my_device";
//     d.device_count = &device_count;
//     ...
//     return d;
//   }();
// Fields a plugin leaves unset stay NULL / 0 ("unsupported" for optional ones),
// so moving to a newer header adds nothing.
template <typename T>
inline T abi_struct() {
  T t{};
  t.struct_size = sizeof(T);
  return t;
}
// A descriptor of this header's ABI version; the plugin sets name, version,
// device_types / num_device_types, default_rank, register_plugin and, since
// ABI 1.4, description.
inline axle_plugin_descriptor plugin_descriptor() {
  auto d = abi_struct<axle_plugin_descriptor>();
  d.abi_major = AXLE_ABI_MAJOR;
  d.abi_minor = AXLE_ABI_MINOR;
  return d;
}

// ------------------------------------------------------------ registration tables
struct KernelEntry {
  const char* op;
  axle_kernel_fn fn;
  const char* provenance;
  uint32_t flags = 0;  // AXLE_KERNEL_* (ABI 1.4), e.g. AXLE_KERNEL_HOST_SCALARS
};

// Registers every entry of `table` for `device_type` (through
// register_kernel_entry on a host of ABI 1.4 or later; an older host never
// passes host scalars, so the flags need nothing there).
template <size_t N>
inline axle_status register_kernels(const axle_registrar* r, const char* device_type, const KernelEntry (&table)[N],
                                    void* user_data = nullptr) {
  const bool has_entry =
      r->struct_size > offsetof(axle_registrar, register_kernel_entry) && r->register_kernel_entry != nullptr;
  for (const KernelEntry& e : table) {
    axle_status s;
    if (has_entry) {
      auto k = abi_struct<axle_kernel_entry>();
      k.op_name = e.op;
      k.device_type = device_type;
      k.fn = e.fn;
      k.user_data = user_data;
      k.provenance = e.provenance;
      k.flags = e.flags;
      s = r->register_kernel_entry(r->context, &k);
    } else {
      s = r->register_kernel(r->context, e.op, device_type, e.fn, user_data, e.provenance);
    }
    if (s != AXLE_OK) return s;
  }
  return AXLE_OK;
}

}  // namespace axle::plugin

#define AXLE_PROVENANCE_STR2(x) #x
#define AXLE_PROVENANCE_STR(x) AXLE_PROVENANCE_STR2(x)
// "file:line" of the registration site, shown by `axle explain`.
#define AXLE_HERE __FILE__ ":" AXLE_PROVENANCE_STR(__LINE__)
