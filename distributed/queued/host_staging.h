#pragma once
// HostStaging: how a host-only transport (Gloo, MPI without CUDA support) serves tensors of an accelerator (CUDA, sim):
// each operation's tensors are copied to host buffers at the call and its results copied back
// before its Work completes, as PyTorch's Gloo backend does for CUDA tensors. The copies go
// through the tensor library (native::copy_), so CUDA and the simulated device share this code.
//
//   HostStaging staging(group.device());        // a no-op for a CPU group
//   Tensor in = staging.input(tensor);          // host copy, taken now
//   Tensor out = staging.output(result, false); // host buffer for a result
//   ... the transport reads `in`, writes `out` ...
//   staging.copy_back();                        // result = out
//
// Ordering: input() copies in the order of the caller's current stream (the CUDA backend copies
// on it and, from pageable or pinned memory alike, returns once the copy is done), so the
// staged values are those the caller's queued work produced. copy_back() waits for its copies,
// so a Work that completes after it has its results in place on the device.
// Host buffers are native::empty_pinned: pinned for CUDA tensors when //cuda is linked (faster
// transfers), plain host memory for the simulated device.
#include <utility>
#include <vector>

#include "tensor/tensor.h"

namespace brisk::dist {

class HostStaging {
 public:
  explicit HostStaging(Device device) : device_(device) {}

  // True when tensors are used in place (a CPU group).
  bool in_place() const { return device_.is_cpu(); }
  // A host tensor with t's values now; t itself for a CPU group.
  Tensor input(const Tensor& t);
  // A host tensor whose values copy_back() writes into t; it starts with t's values when
  // `with_values` (in-place collectives), uninitialized otherwise. t itself for a CPU group.
  Tensor output(const Tensor& t, bool with_values);
  // Copies every output() buffer into its tensor and waits for the copies.
  void copy_back();

 private:
  Device device_;
  std::vector<std::pair<Tensor, Tensor>> outputs_;  // (device tensor, host buffer)
};

}  // namespace brisk::dist
