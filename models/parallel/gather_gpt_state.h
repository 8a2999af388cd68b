#pragma once
// The unsplit GPT's state, model and optimizer, gathered from a ParallelGPT's ranks onto one,
// and the optimizer's split back: what makes a checkpoint of any layout a one-process
// checkpoint, which loads into any other layout. For the model: each stage's parts
// all-gathered whole over tp (tp::full_state_dict), then the pipeline stages' dicts sent to the
// first stage's rank of dp 0, tp 0 (the mesh's coordinate (0, 0, 0): global rank 0 on a mesh
// of these three dimensions), which merges them in the unsplit GPT's key order.
//
//   nn::StateDict full = models::gather_full_state_dict(*model);   // collective: every rank
//   if (is_gathering_rank(*model)) gpt->load_state_dict(full);     // empty on the others
//
// What a checkpoint or a one-process evaluation of a parallel run starts from; the reverse is
// ParallelGPT::load_full_state_dict, on every rank.
//
// The optimizer's state travels the same way: each moment that has its parameter's shape is
// gathered (split) along the parameter's split dim, others (Adam's step) are taken as they
// are, and the indices are renumbered from this rank's parameters (model.parameters()) to the
// unsplit GPT's (`full_keys`: its named_parameters' keys, in order). One parameter group.
//
//   optim::OptimizerState full = gather_full_optimizer_state(*model, optimizer.state_dict(), keys);
//   optimizer.load_state_dict(split_optimizer_state(*model, full, keys));   // any other layout
#include <string>
#include <vector>

#include "models/parallel/parallel_gpt.h"
#include "nn/module.h"
#include "optim/optimizer.h"

namespace brisk::models {

// Collective over every rank of the model's layout. Returns the unsplit state on the rank at
// (dp 0, tp 0, pp 0), empty on the others.
nn::StateDict gather_full_state_dict(ParallelGPTImpl& model);

// `local`: the state of an optimizer over model.parameters() (under ZeRO-1, the consolidated one
// on dp rank 0). Collective over the ranks of dp 0 (the others return at once); returns the
// unsplit state on the gathering rank, an empty one elsewhere.
optim::OptimizerState gather_full_optimizer_state(ParallelGPTImpl& model, const optim::OptimizerState& local,
                                                  const std::vector<std::string>& full_keys);
// This rank's part of an unsplit GPT optimizer's state, for an optimizer over
// model.parameters(). Local. Throws naming a parameter the state's indices do not cover.
optim::OptimizerState split_optimizer_state(ParallelGPTImpl& model, const optim::OptimizerState& full,
                                            const std::vector<std::string>& full_keys);

// Whether this rank is the one gather_full_state_dict returns the state on.
bool is_gathering_rank(const ParallelGPTImpl& model);

}  // namespace brisk::models
