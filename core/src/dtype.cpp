// dtype sizes, names and the promotion table (generated once from PyTorch 1.13's
// torch.promote_types; tests/core/test_dtype.cpp checks it against a table dumped
// from torch at test time when python3-torch is installed).
#include <axle/dtype.h>
#include <axle/error.h>
#include <axle/plugin/helpers.hpp>

#include <ostream>

namespace axle {
namespace {

constexpr DType f4 = kFloat32, f8 = kFloat64, f2 = kFloat16, bf = kBFloat16, i1 = kInt8, u1 = kUInt8, i2 = kInt16,
                i4 = kInt32, i8 = kInt64, b1 = kBool;

// Rows and columns in DType order: f4 f8 f2 bf i1 u1 i2 i4 i8 b1.
constexpr DType kPromotion[kNumDTypes][kNumDTypes] = {
    {f4, f8, f4, f4, f4, f4, f4, f4, f4, f4},  // f4
    {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8},  // f8
    {f4, f8, f2, f4, f2, f2, f2, f2, f2, f2},  // f2
    {f4, f8, f4, bf, bf, bf, bf, bf, bf, bf},  // bf
    {f4, f8, f2, bf, i1, i2, i2, i4, i8, i1},  // i1
    {f4, f8, f2, bf, i2, u1, i2, i4, i8, u1},  // u1
    {f4, f8, f2, bf, i2, i2, i2, i4, i8, i2},  // i2
    {f4, f8, f2, bf, i4, i4, i4, i4, i8, i4},  // i4
    {f4, f8, f2, bf, i8, i8, i8, i8, i8, i8},  // i8
    {f4, f8, f2, bf, i1, u1, i2, i4, i8, b1},  // b1
};

constexpr std::string_view kNames[kNumDTypes] = {"float32", "float64", "float16", "bfloat16", "int8",
                                                 "uint8",   "int16",   "int32",   "int64",    "bool"};

// DType's values are the plugin ABI's axle_dtype values: kernels receive them as they are.
static_assert(static_cast<int>(kFloat32) == AXLE_DTYPE_FLOAT32 && static_cast<int>(kFloat64) == AXLE_DTYPE_FLOAT64 &&
              static_cast<int>(kFloat16) == AXLE_DTYPE_FLOAT16 && static_cast<int>(kBFloat16) == AXLE_DTYPE_BFLOAT16 &&
              static_cast<int>(kInt8) == AXLE_DTYPE_INT8 && static_cast<int>(kUInt8) == AXLE_DTYPE_UINT8 &&
              static_cast<int>(kInt16) == AXLE_DTYPE_INT16 && static_cast<int>(kInt32) == AXLE_DTYPE_INT32 &&
              static_cast<int>(kInt64) == AXLE_DTYPE_INT64 && static_cast<int>(kBool) == AXLE_DTYPE_BOOL);

int index_of(DType d) {
  const int i = static_cast<int>(d);
  if (i < 0 || i >= kNumDTypes) detail::invalid_dtype(i);
  return i;
}

}  // namespace

namespace detail {
void invalid_dtype(int value) { throw DTypeError(concat("invalid dtype value ", value)); }
}  // namespace detail
std::string_view dtype_name(DType d) { return kNames[index_of(d)]; }
const char* torch_type_name(DType d) { return plugin::torch_type_name(static_cast<axle_dtype>(index_of(d))); }

DType dtype_from_name(std::string_view name) {
  if (name.substr(0, 6) == "torch.") name.remove_prefix(6);
  if (name.substr(0, 5) == "axle.") name.remove_prefix(5);
  for (DType d : kAllDTypes)
    if (dtype_name(d) == name) return d;
  struct Alias {
    std::string_view name;
    DType dtype;
  };
  static constexpr Alias kAliases[] = {{"float", kFloat32}, {"double", kFloat64}, {"half", kFloat16},
                                       {"short", kInt16},   {"int", kInt32},      {"long", kInt64}};
  for (const Alias& a : kAliases)
    if (a.name == name) return a.dtype;
  throw DTypeError(detail::concat("unknown dtype '", name,
                                  "'; expected one of float32, float64, float16, bfloat16, int8, uint8, "
                                  "int16, int32, int64, bool"));
}

bool is_floating_point(DType d) { return d == kFloat32 || d == kFloat64 || d == kFloat16 || d == kBFloat16; }
bool is_integral(DType d, bool include_bool) { return !is_floating_point(d) && (include_bool || d != kBool); }
DType promote_types(DType a, DType b) { return kPromotion[index_of(a)][index_of(b)]; }
std::ostream& operator<<(std::ostream& os, DType d) { return os << dtype_name(d); }

}  // namespace axle
