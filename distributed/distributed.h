#pragma once
// The torch.distributed API: one default process group per process, subgroups, and the
// collectives as free functions.
//
//   dist::init_process_group("gloo");          // env://: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT
//   Tensor t = ...;
//   dist::all_reduce(t);                        // blocks; async_op = true returns the Work at once
//   auto evens = dist::new_group({0, 2});       // every rank calls it; nullptr outside the group
//   dist::destroy_process_group();
//
// init_method:
//   "env://"          RANK and WORLD_SIZE (else SLURM_PROCID/SLURM_NTASKS, else
//                     OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE), MASTER_ADDR, MASTER_PORT,
//                     as //tools/launch sets them (torchrun's names; torchrun itself is not
//                     supported: docs/launch.md). rank/world_size arguments win.
//   "tcp://host:port" rank 0 hosts the TCPStore at host:port; rank and world_size from the
//                     arguments or the environment as above.
//   "file://path"     a FileStore at path (a fresh file, on a file system all ranks share).
// The TCPStore presents BRISK_STORE_TOKEN (the launcher's per-job secret). Gloo binds the
// interface that routes to MASTER_ADDR (tcp:// sets MASTER_ADDR to its host when unset;
// file:// without MASTER_ADDR uses loopback, i.e. one machine).
//
// Ranks named in arguments (src, dst, root) are global ranks, as in torch.distributed, and
// are translated to the group's ranks. With async_op = false the call returns after the
// Work completed (and rethrows its error); with true it returns at once.
#include <memory>
#include <string>
#include <vector>

#include "distributed/process_group.h"
#include "distributed/reduce_op.h"
#include "distributed/store/store.h"
#include "distributed/work.h"
#include "tensor/tensor.h"

namespace brisk::dist {

// backend: "gloo" or "nccl" (see backend_registry.h). world_size/rank -1: from init_method.
// Waits for every rank to join (rendezvous.h: rank 0 prints whom it waits for; after
// options.rendezvous_timeout every rank fails naming the missing ranks and where the world size
// was read) before the backend connects them.
void init_process_group(const std::string& backend = "gloo", const std::string& init_method = "env://",
                        int world_size = -1, int rank = -1, ProcessGroupOptions options = {});
// Waits (at most 30 s) on rank 0, which hosts the store, until every rank has called it.
void destroy_process_group();
bool is_initialized();
int get_rank();
int get_world_size();
std::string get_backend();
std::shared_ptr<ProcessGroup> default_group();
std::shared_ptr<Store> default_store();

// Every rank calls new_group with the same ranks, in the same order of calls; ranks outside
// get nullptr. backend "" = the default group's.
std::shared_ptr<ProcessGroup> new_group(std::vector<int> ranks, ProcessGroupOptions options = {},
                                        const std::string& backend = "");
// The global rank of a group's rank, and back (-1 when global_rank is not in the group).
int get_global_rank(const std::shared_ptr<ProcessGroup>& group, int group_rank);
int get_group_rank(const std::shared_ptr<ProcessGroup>& group, int global_rank);

using GroupPtr = std::shared_ptr<ProcessGroup>;

std::shared_ptr<Work> broadcast(Tensor& tensor, int src, const GroupPtr& group = nullptr, bool async_op = false);
std::shared_ptr<Work> all_reduce(Tensor& tensor, ReduceOp op = ReduceOp::SUM, const GroupPtr& group = nullptr,
                                 bool async_op = false);
std::shared_ptr<Work> reduce(Tensor& tensor, int dst, ReduceOp op = ReduceOp::SUM, const GroupPtr& group = nullptr,
                             bool async_op = false);
std::shared_ptr<Work> all_gather(std::vector<Tensor>& outputs, const Tensor& input, const GroupPtr& group = nullptr,
                                 bool async_op = false);
// outputs is used on dst only.
std::shared_ptr<Work> gather(const Tensor& input, std::vector<Tensor>& outputs, int dst,
                             const GroupPtr& group = nullptr, bool async_op = false);
// inputs is used on src only.
std::shared_ptr<Work> scatter(Tensor& output, const std::vector<Tensor>& inputs, int src,
                              const GroupPtr& group = nullptr, bool async_op = false);
std::shared_ptr<Work> reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op = ReduceOp::SUM,
                                     const GroupPtr& group = nullptr, bool async_op = false);
std::shared_ptr<Work> all_to_all(std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                                 const GroupPtr& group = nullptr, bool async_op = false);
std::shared_ptr<Work> barrier(const GroupPtr& group = nullptr, bool async_op = false);
// Blocking point-to-point, and the asynchronous isend/irecv.
void send(const Tensor& tensor, int dst, const GroupPtr& group = nullptr, int tag = 0);
void recv(Tensor& tensor, int src, const GroupPtr& group = nullptr, int tag = 0);
std::shared_ptr<Work> isend(const Tensor& tensor, int dst, const GroupPtr& group = nullptr, int tag = 0);
std::shared_ptr<Work> irecv(Tensor& tensor, int src, const GroupPtr& group = nullptr, int tag = 0);

}  // namespace brisk::dist
