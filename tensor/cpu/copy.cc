// CpuBackend::copy: strided copy with conversion between any two of the eight dtypes.
#include <cstring>

#include "tensor/cpu/cpu_backend.h"
#include "tensor/cpu/loops.h"
#include "tensor/dispatch.h"
#include "tensor/functors/cast.h"

namespace brisk::cpu {
namespace {

// Bytes per parallel chunk of a plain memcpy: large enough that thread start-up is noise.
constexpr int64_t kMemcpyGrain = int64_t(1) << 20;

void parallel_memcpy(void* dst, const void* src, int64_t nbytes) {
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  parallel_for(0, nbytes, kMemcpyGrain,
               [&](int64_t begin, int64_t end) { std::memcpy(d + begin, s + begin, end - begin); });
}

}  // namespace

void CpuBackend::copy(const Tensor& dst, const Tensor& src, bool /*non_blocking*/) {
  BRISK_CHECK(dst.is_cpu() && src.is_cpu(), "copy_: the CPU backend copies between host tensors, got {} and {}",
              dst.describe(), src.describe());
  BRISK_CHECK(dst.sizes() == src.sizes(), "copy_: destination {} and source {} differ in shape", dst.describe(),
              src.describe());
  if (dst.numel() == 0) return;
  if (dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous()) {
    if (dst.raw_data() != src.raw_data())
      parallel_memcpy(dst.raw_data(), src.raw_data(), static_cast<int64_t>(dst.nbytes()));
    return;
  }
  dispatch_all(dst.dtype(), "copy_", [&](auto to_tag) {
    using To = typename decltype(to_tag)::type;
    dispatch_all(src.dtype(), "copy_", [&](auto from_tag) {
      using From = typename decltype(from_tag)::type;
      cpu_kernel(
          dst, [](From x) -> To { return cast<To>(x); }, src);
    });
  });
}

}  // namespace brisk::cpu
