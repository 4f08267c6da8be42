// Data types: the ten dtypes of axle, their sizes and names, and type promotion
// (equal to torch.promote_types). The numbering is the plugin ABI's axle_dtype.
#pragma once

#include <axle/export.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

namespace axle {

enum class DType : int32_t {
  Float32 = 0,
  Float64 = 1,
  Float16 = 2,
  BFloat16 = 3,
  Int8 = 4,
  UInt8 = 5,
  Int16 = 6,
  Int32 = 7,
  Int64 = 8,
  Bool = 9,
};
inline constexpr int kNumDTypes = 10;

inline constexpr DType kFloat32 = DType::Float32;
inline constexpr DType kFloat = DType::Float32;
inline constexpr DType kFloat64 = DType::Float64;
inline constexpr DType kDouble = DType::Float64;
inline constexpr DType kFloat16 = DType::Float16;
inline constexpr DType kHalf = DType::Float16;
inline constexpr DType kBFloat16 = DType::BFloat16;
inline constexpr DType kInt8 = DType::Int8;
inline constexpr DType kUInt8 = DType::UInt8;
inline constexpr DType kInt16 = DType::Int16;
inline constexpr DType kInt32 = DType::Int32;
inline constexpr DType kInt = DType::Int32;
inline constexpr DType kInt64 = DType::Int64;
inline constexpr DType kLong = DType::Int64;
inline constexpr DType kBool = DType::Bool;

// Every dtype, for exhaustive loops in tests and tables.
inline constexpr std::array<DType, kNumDTypes> kAllDTypes = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt8,
                                                             kUInt8,   kInt16,   kInt32,   kInt64,    kBool};

namespace detail {
[[noreturn]] AXLE_API void invalid_dtype(int value);  // throws DTypeError
}
// Bytes per element. Inline: every allocation and data pointer asks for it.
inline size_t element_size(DType d) {
  constexpr size_t kSizes[kNumDTypes] = {4, 8, 2, 2, 1, 1, 2, 4, 8, 1};
  const auto i = static_cast<uint32_t>(d);
  if (i >= static_cast<uint32_t>(kNumDTypes)) detail::invalid_dtype(static_cast<int>(d));
  return kSizes[i];
}
// "float32", "int64", ... (torch's names without the "torch." prefix).
AXLE_API std::string_view dtype_name(DType d);
// torch's ScalarType name ("Float", "Half", "Long", ...), as torch's errors spell it.
AXLE_API const char* torch_type_name(DType d);
// Parses "float32"/"float"/"torch.float32"/"long"...; throws DTypeError naming the text.
AXLE_API DType dtype_from_name(std::string_view name);
AXLE_API bool is_floating_point(DType d);
AXLE_API bool is_integral(DType d, bool include_bool = false);
// torch.promote_types(a, b).
AXLE_API DType promote_types(DType a, DType b);
AXLE_API std::ostream& operator<<(std::ostream& os, DType d);

// C++ type <-> dtype for data_ptr<T>() / item<T>() / from_blob.
template <typename T>
struct dtype_of;
template <>
struct dtype_of<float> {
  static constexpr DType value = kFloat32;
};
template <>
struct dtype_of<double> {
  static constexpr DType value = kFloat64;
};
template <>
struct dtype_of<int8_t> {
  static constexpr DType value = kInt8;
};
template <>
struct dtype_of<uint8_t> {
  static constexpr DType value = kUInt8;
};
template <>
struct dtype_of<int16_t> {
  static constexpr DType value = kInt16;
};
template <>
struct dtype_of<int32_t> {
  static constexpr DType value = kInt32;
};
template <>
struct dtype_of<int64_t> {
  static constexpr DType value = kInt64;
};
template <>
struct dtype_of<bool> {
  static constexpr DType value = kBool;
};

}  // namespace axle
