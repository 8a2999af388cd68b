#pragma once
// TransportBuffers: where a host transport (Gloo, MPI) reads and writes one operation's
// tensors, the one place that decides it. A CPU group's tensors are used in place. For a group
// on an accelerator (cuda:N, or the simulated sim:N) there are two modes:
//
//   staged  (Gloo; MPI without CUDA support) each tensor is copied to a host buffer at the call
//           and the results are copied back before the Work completes, as PyTorch's Gloo
//           backend does for CUDA tensors; the transport's own buffers are host memory.
//   direct  (a CUDA-aware MPI) the transport gets the device tensors themselves, and its own
//           buffers (flat buffers, float32 sums of 16-bit floats) are device memory, packed and
//           unpacked by the device's kernels (native ops). No host copy is made.
//
//   TransportBuffers buffers(group.device(), mode);    // direct: waits for the caller's stream
//   Tensor in = buffers.input(tensor);                  // staged: host copy taken now
//   Tensor out = buffers.output(result, false);         // staged: host buffer for a result
//   Tensor flat = native::empty({n}, TensorOptions(dtype).device(in.device()));  // its own
//   ... native ops pack `flat`; buffers.await_device_work(); the transport reads and writes
//       address(in), address(out), address(flat) ...
//   buffers.copy_back();                                // the results are in place
//
// Ordering: staged, input() copies in the order of the caller's current stream (the CUDA
// backend copies on it and returns once the copy is done), so the staged values are those the
// caller's queued work produced. Direct, the constructor waits for the work queued so far on
// the caller's current stream of the device, so the transport reads what it produced; the
// tensors must then be left alone until the Work completes (as with NCCL). copy_back() waits
// for its copies (staged) or for the device work this thread queued (direct), so a Work that
// completes after it has its results in place on the device.
// Staged host buffers are native::empty_pinned: pinned for CUDA tensors when //cuda is linked
// (faster transfers), plain host memory for the simulated device.
#include <utility>
#include <vector>

#include "tensor/tensor.h"

namespace brisk::dist {

enum class TransportMode { kStaged, kDirect };

class TransportBuffers {
 public:
  // Construct at the call, on the caller's thread (direct mode waits for its current stream).
  explicit TransportBuffers(Device device, TransportMode mode = TransportMode::kStaged);

  // Whether the transport is given the group's own tensors (a CPU group, or direct mode).
  bool in_place() const { return device_.is_cpu() || mode_ == TransportMode::kDirect; }
  // Whether the transport is given device memory (direct mode on an accelerator).
  bool device_memory() const { return !device_.is_cpu() && mode_ == TransportMode::kDirect; }
  // A tensor with t's values now, that the transport reads: a host copy (staged) or t.
  Tensor input(const Tensor& t);
  // A tensor whose values end up in t once copy_back() ran: a host buffer (staged; it starts
  // with t's values when `with_values`, for in-place collectives, else uninitialized) or t.
  Tensor output(const Tensor& t, bool with_values);
  // The address the transport is given for `t` (an input() or output(), or a buffer of the
  // transport's own on the same device): its data pointer. For the simulated device, whose
  // pointers the host cannot dereference, the host memory behind it: sim:N stands for a GPU
  // whose memory a CUDA-aware library reaches itself.
  static void* address(const Tensor& t);
  // Direct mode: waits for the device work this thread queued so far (packing, conversions),
  // so that the transport reads its results. Nothing to wait for on the host (staged, CPU) or
  // on the simulated device, whose kernels run on the calling thread.
  void await_device_work() const;
  // Staged: copies every output() buffer into its tensor and waits for the copies. Direct:
  // await_device_work() (unpacking, rounding to 16 bits).
  void copy_back();

 private:
  Device device_;
  TransportMode mode_;
  std::vector<std::pair<Tensor, Tensor>> outputs_;  // staged: (device tensor, host buffer)
};

}  // namespace brisk::dist
