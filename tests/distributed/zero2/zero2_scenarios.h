#pragma once
// The ZeRO-2 scenarios, written against any ProcessGroup so that the same code runs on
// in-process thread ranks (zero2_threads_test) and on processes started by the launcher
// (zero2_worker, zero2_multiprocess_test).
//
// Every rank computes the single-process reference itself (one model, the plain optimizer,
// the global batch of world * B rows, float64 unless said otherwise, on the CPU) and trains
// its Zero2DataParallel replica with a Zero2Optimizer on its B rows, on the group's device
// (rank r > 0 starts from perturbed weights, so only the wrapper's broadcast can make the
// replicas agree). After every step the parameters must be within 1e-12 of the reference
// (float32: 1e-5) and bitwise equal to rank 0's; after every synchronizing backward no
// parameter may hold a .grad, the reducer no bucket, and the shards exactly this rank's rows.
//
//   mlp_sgd, mlp_adam            MLP 8-16-12-4, SGD with momentum / Adam, 4 steps
//   mlp_adam_float32             the same in float32, within 1e-5 (the DDP tests' tolerance)
//   shapes_adam                  parameters of mixed shapes: a channels_last conv weight
//                                [3, 2, 3, 3], a linear weight [2, 48] (fewer rows than
//                                ranks: some own none of it), a 0-d scale
//   resnet20_sgd, resnet20_adam  ResNet-20 on 8x8 images (BatchNorm in eval mode, so that a
//                                row's output does not depend on the rows batched with it)
//   resnet20_sync_bn             ResNet-20 in training mode, the replica's BatchNorm layers
//                                SyncBatchNorm over the group (its collectives interleave with
//                                ZeRO-2's in backward); the running statistics match too
//   resnet18_adam                ResNet-18, the largest model in models/ (width 4, 8x8 images,
//                                BatchNorm in eval mode), Adam, 3 steps
//   checkpointed                 the replica's blocks under activation checkpointing
//                                (recomputed in backward), Adam
//   no_sync                      3 micro-batches a step, the first two under no_sync
//   clip                         clip_grad_norm_(0.05): the total norm equals
//                                optim::clip_grad_norm_'s on the reference
//   scaler                       optim::GradScaler; in step 1 the last rank's shard of one
//                                gradient overflows (only that rank sees it): every rank
//                                skips that step, as the reference does
//   state_dict                   Adam: the state consolidated on the last rank after 3 steps
//                                equals the reference's state_dict; a plain Adam loading it
//                                and a new Zero2Optimizer loading the reference's continue
//                                2 steps as the reference does; model state_dict keys
//                                are "module.<name>"
#include <memory>
#include <string>
#include <vector>

#include "distributed/process_group.h"

namespace brisk::dist::testing {

const std::vector<std::string>& zero2_scenario_names();
// "" when the scenario passed on this rank, else what went wrong.
std::string run_zero2_scenario(const std::string& name, const std::shared_ptr<ProcessGroup>& group);

}  // namespace brisk::dist::testing
