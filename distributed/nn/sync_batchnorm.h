#pragma once
// Batch normalization over the whole batch of a data-parallel job, as torch.nn.SyncBatchNorm.
// In training each process normalizes its part of the batch with the mean and variance of
// the whole batch (every rank of the process group), updates the running statistics with
// them, and in the backward the statistics' gradients are summed over the ranks as well;
// outputs and gradients equal those of BatchNorm on the concatenated batch. In eval mode,
// alone (world size 1, or no process group initialized), it is plain BatchNorm.
//
//   dist::init_process_group("gloo");
//   auto bn = nn::SyncBatchNorm(64);             // the default group
//   nn::convert_sync_batchnorm(*model);          // or: every BatchNorm layer of a model
//   DistributedDataParallel ddp(model, ...);
//
// Each forward (and backward) in training is a collective: every rank must run it, with
// parts of any size (even empty) but the same channels, dtype and device (the group's).
// Over NCCL the input is on the rank's GPU; over Gloo on the group's device. docs/ddp.md
// says when to use it. Bazel: //distributed/nn:sync_batchnorm (nn/nn.h leaves it out: nn does
// not depend on distributed; brisk/brisk.h has it).
#include <cstdint>
#include <memory>

#include "distributed/process_group.h"
#include "nn/modules/batchnorm.h"

namespace brisk::nn {

// Inputs [N, C, *] with 1 to 3 trailing dims (those of BatchNorm1d, 2d and 3d).
class SyncBatchNormImpl : public BatchNormImplBase {
 public:
  // process_group nullptr: the default group (dist::init_process_group), read at each forward.
  // (dist::new_group gives nullptr to the ranks outside it: give those their own group.)
  explicit SyncBatchNormImpl(const BatchNormOptions& options,
                             std::shared_ptr<dist::ProcessGroup> process_group = nullptr);
  explicit SyncBatchNormImpl(int64_t num_features) : SyncBatchNormImpl(BatchNormOptions(num_features)) {}
};

BRISK_MODULE(SyncBatchNorm);

// Makes every BatchNorm layer in `module` (itself included) normalize over `process_group`
// (nullptr: the default group) as SyncBatchNorm does, in place: the layers keep their
// parameters, buffers, state_dict names and the handles the model holds. Returns how many
// layers it converted.
int convert_sync_batchnorm(Module& module, std::shared_ptr<dist::ProcessGroup> process_group = nullptr);

}  // namespace brisk::nn
