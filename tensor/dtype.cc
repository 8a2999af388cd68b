#include "tensor/dtype.h"

namespace brisk {

size_t element_size(DType t) {
  switch (t) {
#define BRISK_DTYPE_SIZE(name, type, printed, scalar_type) \
  case DType::name: return sizeof(type);
    BRISK_FORALL_DTYPES(BRISK_DTYPE_SIZE)
#undef BRISK_DTYPE_SIZE
  }
  return 0;
}

const char* dtype_name(DType t) {
  switch (t) {
#define BRISK_DTYPE_NAME(name, type, printed, scalar_type) \
  case DType::name: return printed;
    BRISK_FORALL_DTYPES(BRISK_DTYPE_NAME)
#undef BRISK_DTYPE_NAME
  }
  return "?";
}

bool is_floating_point(DType t) { return t == kFloat32 || t == kFloat64 || is_reduced_float(t); }
bool is_reduced_float(DType t) { return t == kBFloat16 || t == kFloat16; }

bool is_integral(DType t, bool include_bool) {
  return t == kInt64 || t == kInt32 || t == kUInt8 || (include_bool && t == kBool);
}

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  // Order of this table: Float32, Float64, Int64, Int32, UInt8, Bool, BFloat16, Float16.
  static constexpr DType f4 = kFloat32, f8 = kFloat64, i8 = kInt64, i4 = kInt32, u1 = kUInt8, b1 = kBool,
                         bf = kBFloat16, f2 = kFloat16;
  static constexpr DType table[8][8] = {
      /* f4 */ {f4, f8, f4, f4, f4, f4, f4, f4},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8},
      /* i8 */ {f4, f8, i8, i8, i8, i8, bf, f2},
      /* i4 */ {f4, f8, i8, i4, i4, i4, bf, f2},
      /* u1 */ {f4, f8, i8, i4, u1, u1, bf, f2},
      /* b1 */ {f4, f8, i8, i4, u1, b1, bf, f2},
      /* bf */ {f4, f8, bf, bf, bf, bf, bf, f4},
      /* f2 */ {f4, f8, f2, f2, f2, f2, f4, f2},
  };
  return table[static_cast<int>(a)][static_cast<int>(b)];
}

}  // namespace brisk
