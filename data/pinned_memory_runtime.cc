#include "data/pinned_memory_runtime.h"

#include <atomic>

namespace brisk::data {
namespace {

std::atomic<PinnedMemoryRuntime*> replacement{nullptr};

}  // namespace

PinnedMemoryRuntime& pinned_memory_runtime() {
  PinnedMemoryRuntime* runtime = replacement.load();
  return runtime != nullptr ? *runtime : builtin_pinned_memory_runtime();
}

PinnedMemoryRuntime* set_pinned_memory_runtime(PinnedMemoryRuntime* runtime) {
  PinnedMemoryRuntime* previous = replacement.exchange(runtime);
  return previous != nullptr ? previous : &builtin_pinned_memory_runtime();
}

}  // namespace brisk::data
