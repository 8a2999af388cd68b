#pragma once
// Element types of tensors and PyTorch's rules for combining them.
#include <cstddef>
#include <cstdint>

#include "tensor/half.h"

namespace brisk {

enum class DType : uint8_t { Float32, Float64, Int64, Int32, UInt8, Bool, BFloat16, Float16 };

constexpr DType kFloat32 = DType::Float32;
constexpr DType kFloat64 = DType::Float64;
constexpr DType kInt64 = DType::Int64;
constexpr DType kInt32 = DType::Int32;
constexpr DType kUInt8 = DType::UInt8;
constexpr DType kBool = DType::Bool;
constexpr DType kBFloat16 = DType::BFloat16;
constexpr DType kFloat16 = DType::Float16;

size_t element_size(DType t);
// "float32", "int64", ... as PyTorch prints them without the "torch." prefix.
const char* dtype_name(DType t);
bool is_floating_point(DType t);
// bfloat16 or float16: stored in 16 bits, computed in float32.
bool is_reduced_float(DType t);
bool is_integral(DType t, bool include_bool);

// The dtype of a binary op on tensors of dtypes a and b (torch.promote_types).
DType promote_types(DType a, DType b);

// C++ type <-> DType.
template <typename T>
struct dtype_of;
// clang-format off
template <> struct dtype_of<float> { static constexpr DType value = kFloat32; };
template <> struct dtype_of<double> { static constexpr DType value = kFloat64; };
template <> struct dtype_of<int64_t> { static constexpr DType value = kInt64; };
template <> struct dtype_of<int32_t> { static constexpr DType value = kInt32; };
template <> struct dtype_of<uint8_t> { static constexpr DType value = kUInt8; };
template <> struct dtype_of<bool> { static constexpr DType value = kBool; };
template <> struct dtype_of<BFloat16> { static constexpr DType value = kBFloat16; };
template <> struct dtype_of<Half> { static constexpr DType value = kFloat16; };
// clang-format on

}  // namespace brisk

#include <fmt/format.h>
template <>
struct fmt::formatter<brisk::DType> : fmt::formatter<fmt::string_view> {
  template <typename Ctx>
  auto format(brisk::DType t, Ctx& ctx) const {
    return fmt::formatter<fmt::string_view>::format(brisk::dtype_name(t), ctx);
  }
};
