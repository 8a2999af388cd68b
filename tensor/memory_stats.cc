#include "tensor/memory_stats.h"

#include <fmt/format.h>

namespace brisk {

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

const char* out_of_memory_advice() {
  return "To need less memory, try: a smaller --batch-size, or the same batch in smaller micro-batches with "
         "--accumulate N; activation checkpointing (nn::utils::checkpoint), which recomputes activations in backward "
         "instead of keeping them; mixed precision (autocast, train --amp bf16 or fp16); freeing tensors that are no "
         "longer needed.";
}

}  // namespace brisk
