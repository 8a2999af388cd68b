#include "distributed/queued/host_staging.h"

#include "tensor/native/ops.h"

namespace brisk::dist {

Tensor HostStaging::input(const Tensor& t) {
  if (in_place()) return t;
  Tensor host = native::empty_pinned(t.sizes(), t.dtype(), t.device());
  native::copy_(host, t);
  return host;
}

Tensor HostStaging::output(const Tensor& t, bool with_values) {
  if (in_place()) return t;
  Tensor host = with_values ? input(t) : native::empty_pinned(t.sizes(), t.dtype(), t.device());
  outputs_.emplace_back(t, host);
  return host;
}

void HostStaging::copy_back() {
  for (auto& [device_tensor, host] : outputs_) native::copy_(device_tensor, host);
}

}  // namespace brisk::dist
