#pragma once
// The Backend that backend_for() returns while a profiler records (profiler/profiler.h): it
// records each kernel call as an op event (the PyTorch name of the op, the input shapes and
// dtypes) and forwards it to the device's own backend. Every native op reaches its kernels
// through backend_for(), so every entry point is covered by this one hook; when no profiler
// records, backend_for() costs one relaxed atomic load more.
#include "tensor/backend.h"

namespace brisk {

// The recording wrapper of `inner` (one per device type, made on first use).
Backend& profiled_backend(DeviceType type, Backend& inner);

}  // namespace brisk
