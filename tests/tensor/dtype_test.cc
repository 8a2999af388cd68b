// libtorch's names for the dtypes and their type.
#include <catch2/catch.hpp>

#include <type_traits>

#include "tensor/dtype.h"

namespace brisk {
namespace {

static_assert(std::is_same_v<ScalarType, DType> && std::is_same_v<Dtype, DType>);

TEST_CASE("libtorch's dtype names are Brisk's dtypes", "[dtype]") {
  CHECK(kFloat == kFloat32);
  CHECK(kDouble == kFloat64);
  CHECK(kLong == kInt64);
  CHECK(kInt == kInt32);
  CHECK(kByte == kUInt8);
  CHECK(kHalf == kFloat16);
  // The names whose Brisk spelling is libtorch's already.
  CHECK(kBool == DType::Bool);
  CHECK(kBFloat16 == DType::BFloat16);
  CHECK(dtype_name(kLong) == std::string("int64"));
}

}  // namespace
}  // namespace brisk
