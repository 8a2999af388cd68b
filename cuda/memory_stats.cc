#include "cuda/memory_stats.h"

#include <fmt/format.h>

namespace brisk::cuda {

std::string format_bytes(size_t nbytes) {
  if (nbytes < 1024) return fmt::format("{} bytes", nbytes);
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(nbytes) / 1024;
  int unit = 0;
  while (value >= 1024 && unit < 3) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{:.2f} {}", value, units[unit]);
}

}  // namespace brisk::cuda
