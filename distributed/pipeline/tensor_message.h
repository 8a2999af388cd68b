#pragma once
// A pipeline message: several tensors of any shapes sent to one peer, each message describing
// itself, so that shapes may change from one step or microbatch to the next (a last partial
// batch, variable sequence lengths) and a stage may pass several tensors (skip connections).
//
//   PendingSend sent = send_tensors(group, {hidden, skip}, /*dst=*/1, /*tag=*/0);
//   std::vector<Tensor> got = recv_tensors(group, /*src=*/0, /*tag=*/0);   // on rank 1
//   sent.wait();   // before the tensors change
//
// On the wire, all on one tag: the header, int64 values: its length, the number of tensors,
// then per tensor its dtype, ndim and sizes (ndim -1 for an undefined tensor, e.g. a gradient
// that does not exist), sent as kHeaderCapacity values (zero-padded), with whatever exceeds
// them in a second send; then each tensor that has elements. The receiver posts the tensors'
// receives together once it has read the header. Messages from one rank to another on one tag
// arrive in order, so consecutive messages never mix.
#include <memory>
#include <vector>

#include "distributed/process_group.h"

namespace brisk::dist::pipeline {

// Values of the header's first send: room for 8 tensors of 5 dims.
constexpr int64_t kHeaderCapacity = 64;

// The Works of a message's sends and what they read, which must stay alive until wait().
struct PendingSend {
  std::vector<std::shared_ptr<Work>> works;
  std::vector<Tensor> buffers;
  void wait();
};

// Sends `tensors` (each undefined or on group.device()) to `dst`; returns without waiting.
PendingSend send_tensors(ProcessGroup& group, const std::vector<Tensor>& tensors, int dst, int tag);

// Receives one message from `src`: its tensors, new, contiguous, on group.device(). Blocks.
std::vector<Tensor> recv_tensors(ProcessGroup& group, int src, int tag);

}  // namespace brisk::dist::pipeline
