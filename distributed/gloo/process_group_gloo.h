#pragma once
// dist::ProcessGroupGloo: the collectives of ProcessGroup over Gloo's TCP transport (as
// c10d::ProcessGroupGloo), on tensors of the group's device (ProcessGroupOptions::device; the
// CPU by default).
//
//   auto store = std::make_shared<TCPStore>(addr, options);
//   ProcessGroupGloo group(std::make_shared<PrefixStore>("default", store), rank, size);
//   group.all_reduce(t)->wait();
//
// Ranks connect a full mesh of TCP pairs on the interface that routes to `host` (the
// MASTER_ADDR; loopback when local). Collectives run one at a time, in call order, on one
// worker thread per group; send/recv are posted in order on that thread and completed by a
// second one, so a send never waits for the peer's recv before later operations start.
//
// A group on an accelerator (cuda:N, or the simulated sim:N) takes only tensors of that device
// and stages them through host memory (distributed/queued/transport_buffers.h): its inputs are copied
// at the call, in the order of the caller's current stream; after wait() the results are in
// place on the device.
//
// Dtypes: float32, float64, int64, int32, uint8 for every op; all_reduce, reduce and
// reduce_scatter also take bfloat16 and float16 (each pairwise step computed in float).
//
// Failure (what each says and how it is found: docs/distributed.md): a desync, a collective not
// done within `timeout`, a dead peer or a rank silent for heartbeat_timeout fails the pending
// Work with the op, its number and why, then the flight recorder; the group is then unusable:
// every later Work fails at once with that first error. wait() throws it as a brisk::Error.
// A failed collective whose Gloo call still waits keeps the worker until `timeout`, so
// destroying the group then takes up to that long. Constructing a group sets SIGPIPE to
// ignored unless the program installed a handler of its own, so that a dead peer surfaces as
// that error (Gloo writes to sockets without MSG_NOSIGNAL).
#include <memory>
#include <string>

#include "distributed/process_group.h"
#include "distributed/store/store.h"

namespace brisk::dist {

class ProcessGroupGloo : public ProcessGroup {
 public:
  // `store` should be private to this group (a PrefixStore). `host`: see device_host().
  ProcessGroupGloo(std::shared_ptr<Store> store, int rank, int size, ProcessGroupOptions options = {},
                   std::string host = device_host(), std::string name = "default");
  ~ProcessGroupGloo() override;  // finishes queued work first

  std::string backend_name() const override { return "gloo"; }
  const std::string& name() const;
  const ProcessGroupOptions& options() const;

  BRISK_PROCESS_GROUP_OVERRIDES

  // The address whose interface Gloo binds: the local address routing to MASTER_ADDR when
  // that is set, else 127.0.0.1.
  static std::string device_host();

  struct Impl;  // distributed/gloo/process_group_gloo_impl.h

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace brisk::dist
