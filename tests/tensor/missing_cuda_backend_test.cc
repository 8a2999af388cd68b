// A CUDA device requested by a program without Brisk's CUDA backend (this test links only
// //tensor): the error says why, and the why depends on the build (BRISK_WITH_CUDA).
#include <catch2/catch.hpp>

#include "tensor/backend.h"
#include "tensor/native/ops.h"

namespace brisk {
namespace {

using Catch::Matchers::Contains;

#ifdef BRISK_WITH_CUDA
const char* const kWhy = "but this program does not link Brisk's CUDA backend (depend on //cuda)";
#else
const char* const kWhy = "but this build of Brisk has no CUDA support (built without the CUDA toolkit)";
#endif

TEST_CASE("a CUDA tensor without the CUDA backend linked: the error says why") {
  CHECK_THROWS_WITH(native::empty({2, 3}, cuda_device(0)), Contains("device cuda:0 requested") && Contains(kWhy));
  CHECK_THROWS_WITH(backend_for(cuda_device(1)), Contains("device cuda:1 requested") && Contains(kWhy));
}

}  // namespace
}  // namespace brisk
