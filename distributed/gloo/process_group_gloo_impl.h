#pragma once
// The state behind ProcessGroupGloo: the Gloo context, and the queue that runs its operations
// (distributed/queued/queued_group.h). Internal to //distributed/gloo; the operations
// themselves are in process_group_gloo.cc.
#include <gloo/rendezvous/context.h>
#include <gloo/transport/device.h>

#include <cstdint>
#include <memory>
#include <string>

#include "distributed/gloo/process_group_gloo.h"
#include "distributed/queued/queued_group.h"

namespace brisk::dist {

struct ProcessGroupGloo::Impl {
  // Connects the full mesh of ranks on the interface of `host` (throws naming it after the
  // timeout), then starts the queue (its watchdog and threads).
  Impl(std::shared_ptr<Store> store, int rank, int size, ProcessGroupOptions options, const std::string& host,
       std::string name);

  // Point-to-point: `tensor` is host memory (staged by `staging`, which copies a received
  // tensor back), sent to or received from `peer` in the Gloo slot of `tag`.
  std::shared_ptr<Work> p2p(bool is_send, Tensor tensor, std::shared_ptr<TransportBuffers> staging, int peer, int tag);

  // Gloo's options for one collective (gloo::AllreduceOptions, ...): on this group's context,
  // with the collective's tag and the group's timeout.
  template <typename GlooOptions>
  GlooOptions options_for(uint32_t tag) const {
    GlooOptions o(context);
    o.setTag(tag);
    o.setTimeout(options.timeout);
    return o;
  }

  int rank;
  int size;
  ProcessGroupOptions options;
  std::string name;
  std::shared_ptr<gloo::transport::Device> device;
  std::shared_ptr<gloo::rendezvous::Context> context;
  // Destroyed first (declared last): it runs what is queued before the context goes.
  std::unique_ptr<QueuedGroup> queue;
};

}  // namespace brisk::dist
