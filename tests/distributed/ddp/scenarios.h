#pragma once
// The DistributedDataParallel scenarios, written against any ProcessGroup so that the same
// code runs on in-process thread ranks (ddp_threads_test) and on real processes started by
// the launcher (ddp_worker, ddp_multiprocess_test).
//
// Every rank computes the single-process reference itself (one model, batch world * B, the
// same seeds), trains its DDP replica on its B rows (rank r > 0 starts from perturbed
// weights, so only DDP's broadcast can make replicas agree), and compares.
//
// The replica and its data live on the group's device (ProcessGroup::device()): the CPU for
// a default Gloo group, sim:rank for the device-generic runs, where DDP must keep every
// tensor it hands the group on that device and never read device memory on the host. The
// reference always trains on the CPU.
#include <memory>
#include <string>
#include <vector>

#include "distributed/process_group.h"

namespace brisk::dist::testing {

struct Outcome {
  // Largest |DDP - reference| over the parameters (and rank 0's buffers where they apply);
  // for "bf16", over the gradients against the float32 all-reduce.
  double max_diff = 0;
  // Parameters (and buffers) bitwise equal to rank 0's; for "bf16", the gradients also
  // exactly representable in bfloat16.
  bool identical = false;
  std::vector<std::vector<size_t>> initial_buckets, final_buckets;
  std::vector<size_t> ready_order;  // after the first step
};

// equivalence, rebuild, no_sync, unused_per_step, unused_per_rank, micro_batches,
// batchnorm, bf16, bucket_view, bucket_view_keep, bucket_view_unused,
// bucket_view_channels_last (each 4-D .grad a channels_last bucket view); and the step around
// DDP: clip_sgd_nesterov, clip_adam (clip_grad_norm_ of the averaged gradients, then SGD
// with Nesterov momentum and weight decay / Adam with amsgrad), adamw, and
// checkpoint_resume (rank 0 saves after 2 steps, every rank restores a fresh replica and
// optimizer from the file and trains on), activation_checkpoint (the replica's blocks under
// nn::utils::checkpoint, recomputed in backward), forward_variants (forwards without a
// backward of their own, two forwards before one backward, a no_sync forward's backward
// after the guard).
const std::vector<std::string>& scenario_names();
Outcome run_scenario(const std::string& name, const std::shared_ptr<ProcessGroup>& group);
// How far from the reference scenario `name` may end: 1e-2 for bf16 (gradients rounded to
// bfloat16), else 1e-5 (float32 sums in another order).
double scenario_tolerance(const std::string& name);

// Scenarios that must fail with an error naming a rank or parameter; they throw it.
//   shape_mismatch: rank 1's model has a different hidden width.
//   unused_error:   a parameter gets no gradient and find_unused_parameters is off.
//   uneven:         rank 1 has one batch fewer, then every rank calls join().
//   wrapped_forward: every rank calls the wrapped module instead of DDP, then backward.
//   wrapped_forward_rank1: rank 1 alone does so, in the second step; rank 0 calls DDP.
//   second_backward: a second backward through the graph of one synchronizing forward.
void run_error_scenario(const std::string& name, const std::shared_ptr<ProcessGroup>& group);

}  // namespace brisk::dist::testing
