#pragma once
// The unsplit GPT's state gathered from a ParallelGPT's ranks onto one: each stage's parts
// all-gathered whole over tp (tp::full_state_dict), then the pipeline stages' dicts sent to the
// first stage's rank of dp 0, tp 0 (global rank 0 when the mesh is {pp, dp, tp} or any order
// with those coordinates at 0 first), which merges them in the unsplit GPT's key order.
//
//   nn::StateDict full = models::gather_full_state_dict(*model);   // collective: every rank
//   if (!full.empty()) gpt->load_state_dict(full);                 // on the gathering rank only
//
// What a checkpoint or a one-process evaluation of a parallel run starts from; the reverse is
// ParallelGPT::load_full_state_dict, on every rank.
#include "models/parallel/parallel_gpt.h"
#include "nn/module.h"

namespace brisk::models {

// Collective over every rank of the model's layout. Returns the unsplit state on the rank at
// (dp 0, tp 0, pp 0), empty on the others.
nn::StateDict gather_full_state_dict(ParallelGPTImpl& model);

// Whether this rank is the one gather_full_state_dict returns the state on.
bool is_gathering_rank(const ParallelGPTImpl& model);

}  // namespace brisk::models
