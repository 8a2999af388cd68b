#pragma once
// A pipeline message: several tensors of any shapes sent to one peer, each message describing
// itself, so that shapes may change from one step or microbatch to the next (a last partial
// batch, variable sequence lengths) and a stage may pass several tensors (skip connections).
//
//   MessageShapes sent_shapes, received_shapes;   // one per stream: (peer, tag) on each end
//   PendingSend sent = send_tensors(group, {hidden, skip}, /*dst=*/1, /*tag=*/0, sent_shapes);
//   std::vector<Tensor> got = recv_tensors(group, /*src=*/0, /*tag=*/0, received_shapes);  // rank 1
//   sent.wait();   // before the tensors change
//
//   PendingRecv next = post_recv_tensors(group, 0, 0, received_shapes);  // rank 1, ahead of time
//   ... compute, send ...
//   std::vector<Tensor> later = next.wait();
//
// On the wire, all on one tag: the header, int64 values (a flag, its length, the number of
// tensors, then per tensor its dtype, ndim and sizes; ndim -1 for an undefined tensor, e.g. a
// gradient that does not exist), sent as kHeaderCapacity values (zero-padded) with whatever
// exceeds them in a second send; then each tensor that has elements. Messages from one rank to
// another on one tag arrive in order, so consecutive messages never mix.
//
// Both ends remember the shapes of the stream's last message (MessageShapes). The receiver
// posts the header's receive and, for the remembered shapes, the tensors' receives at once, so
// a message shaped like the one before it costs one round trip, not two. When the shapes
// changed, the flag says so and the sender first fills the posted receives with zeros of the
// old shapes, then sends the new header's rest and the tensors.
//
// A receive may be posted before it is needed (post_recv_tensors), so that the message lands
// in posted buffers whenever it is sent: over Gloo a send completes only once its receive is
// posted, so a receive posted when its turn comes costs a round trip after the message was
// sent. A stream has at most one posted receive at a time: the next one is posted after this
// one's wait(), when the shapes it expects are known.
#include <cstdint>
#include <memory>
#include <vector>

#include "distributed/process_group.h"

namespace brisk::dist::pipeline {

// Values of the header's first send: room for 8 tensors of 5 dims.
constexpr int64_t kHeaderCapacity = 64;

// The header of a stream's last message, as one end saw it (empty before the first).
struct MessageShapes {
  std::vector<int64_t> header;
};

// The Works of a message's sends and what they read, which must stay alive until wait().
struct PendingSend {
  std::vector<std::shared_ptr<Work>> works;
  std::vector<Tensor> buffers;
  void wait();
};

// Sends `tensors` (each undefined or on group.device()) to `dst`; returns without waiting.
// `shapes` is this end's memory of the stream (dst, tag), updated.
PendingSend send_tensors(ProcessGroup& group, const std::vector<Tensor>& tensors, int dst, int tag,
                         MessageShapes& shapes);

// One message's receives, posted: the header's and those of the tensors of the stream's last
// shapes. wait() blocks until the message has come (the rest of its header and its tensors
// received when its shapes are new), updates the stream's shapes and returns its tensors.
// The group and the shapes must outlive it; a PendingRecv is waited once.
class PendingRecv {
 public:
  std::vector<Tensor> wait();

 private:
  friend PendingRecv post_recv_tensors(ProcessGroup& group, int src, int tag, MessageShapes& shapes);
  PendingRecv(ProcessGroup& group, int src, int tag, MessageShapes& shapes)
      : group_(&group), src_(src), tag_(tag), shapes_(&shapes) {}

  ProcessGroup* group_;
  int src_, tag_;
  MessageShapes* shapes_;
  Tensor header_;  // the header's first send
  std::shared_ptr<Work> header_work_;
  std::vector<Tensor> expected_;  // shaped like the stream's last message
  std::vector<std::shared_ptr<Work>> expected_works_;
};

// Posts the receives of the next message from `src` and returns without waiting. `shapes` is
// this end's memory of the stream (src, tag), read now and updated by wait(); the stream's
// previous PendingRecv must have been waited.
PendingRecv post_recv_tensors(ProcessGroup& group, int src, int tag, MessageShapes& shapes);

// Receives one message from `src`: its tensors, new, contiguous, on group.device(). Blocks:
// post_recv_tensors(...).wait().
std::vector<Tensor> recv_tensors(ProcessGroup& group, int src, int tag, MessageShapes& shapes);

}  // namespace brisk::dist::pipeline
