#pragma once
// The Backend that backend_for() returns while a profiler records (profiler/profiler.h): it
// records each kernel call as an op event (the row's event name in tensor/backend.h, the
// input shapes and dtypes) and forwards it to the device's own backend. Every native op
// reaches its kernels through backend_for(), so every entry point is covered by this one hook;
// when no profiler records, backend_for() costs one relaxed atomic load more. Its forwards are
// generated from Backend's list of methods, so none can be missing.
#include "tensor/backend.h"

namespace brisk {

class ProfiledBackend final : public Backend {
 public:
  explicit ProfiledBackend(Backend& inner) : inner_(inner) {}

  BRISK_BACKEND_METHODS(BRISK_BACKEND_OVERRIDE)
  bool has_batch_norm() const override { return inner_.has_batch_norm(); }

 private:
  Backend& inner_;
};

// The recording wrapper of `inner` (one per device type, made on first use).
Backend& profiled_backend(DeviceType type, Backend& inner);

}  // namespace brisk
