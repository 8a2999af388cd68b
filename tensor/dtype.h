#pragma once
// Element types of tensors and PyTorch's rules for combining them.
#include <cstddef>
#include <cstdint>

#include "tensor/half.h"

namespace brisk {

// Every dtype, in DType's order: its name, its C++ type, the name PyTorch prints
// ("torch.float32" without the prefix) and PyTorch's ScalarType name (its casting errors').
#define BRISK_FORALL_DTYPES(_)                  \
  _(Float32, float, "float32", "Float")         \
  _(Float64, double, "float64", "Double")       \
  _(Int64, int64_t, "int64", "Long")            \
  _(Int32, int32_t, "int32", "Int")             \
  _(UInt8, uint8_t, "uint8", "Byte")            \
  _(Bool, bool, "bool", "Bool")                 \
  _(BFloat16, BFloat16, "bfloat16", "BFloat16") \
  _(Float16, Half, "float16", "Half")

#define BRISK_DTYPE_ENUMERATOR(name, type, printed, scalar_type) name,
enum class DType : uint8_t { BRISK_FORALL_DTYPES(BRISK_DTYPE_ENUMERATOR) };
#undef BRISK_DTYPE_ENUMERATOR

// kFloat32, kInt64, ...
#define BRISK_DTYPE_CONSTANT(name, type, printed, scalar_type) constexpr DType k##name = DType::name;
BRISK_FORALL_DTYPES(BRISK_DTYPE_CONSTANT)
#undef BRISK_DTYPE_CONSTANT

// libtorch's constants: k + PyTorch's ScalarType name (the table's last column), for the dtypes
// whose Brisk name differs (kBool and kBFloat16 are both already).
constexpr DType kFloat = kFloat32, kDouble = kFloat64, kLong = kInt64, kInt = kInt32, kByte = kUInt8,
                kHalf = kFloat16;
// libtorch's names of the dtype type (c10::ScalarType, torch::Dtype).
using ScalarType = DType;
using Dtype = DType;

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
#define BRISK_DTYPE_OF(name, type, printed, scalar_type) \
  template <>                                            \
  struct dtype_of<type> {                                \
    static constexpr DType value = DType::name;          \
  };
BRISK_FORALL_DTYPES(BRISK_DTYPE_OF)
#undef BRISK_DTYPE_OF

}  // namespace brisk

#include <fmt/format.h>
template <>
struct fmt::formatter<brisk::DType> : fmt::formatter<fmt::string_view> {
  template <typename Ctx>
  auto format(brisk::DType t, Ctx& ctx) const {
    return fmt::formatter<fmt::string_view>::format(brisk::dtype_name(t), ctx);
  }
};
