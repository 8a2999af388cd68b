#include "tensor/cpu/cpu_backend.h"

namespace brisk {

// A function-local static: ready for ops run during static initialization.
Backend& cpu_backend() {
  static cpu::CpuBackend backend;
  return backend;
}

}  // namespace brisk
