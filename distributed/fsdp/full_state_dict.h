#pragma once
// The state of a fully sharded model (the root of dist::fully_shard units) and of an optimizer
// over its shards, as the unsharded model and its optimizer would have them, and back: what an
// ordinary single-file checkpoint holds (PyTorch's get_model_state_dict and
// get_optimizer_state_dict with full_state_dict=True).
//
//   nn::StateDict model_state = dist::full_state_dict(*model, /*to=*/0);              // collective
//   optim::OptimizerState opt_state = dist::full_optimizer_state_dict(*model, opt, 0);  // collective
//   ...
//   dist::load_full_state_dict(*model, model_state);        // every rank, the same full state
//   dist::load_full_optimizer_state_dict(*model, opt, opt_state);
//
// Every parameter is gathered from its rows on each rank (one all_gather per tensor, over its
// unit's group), so the full tensor exists for a moment on every rank, one tensor at a time.
#include "nn/module.h"
#include "optim/optimizer.h"

namespace brisk::dist {

// The model's state_dict with each parameter of a unit gathered whole; buffers as this rank
// holds them. On rank `to` of the units' group; empty on the others. Collective.
nn::StateDict full_state_dict(nn::Module& model, int to);

// Loads an unsharded state_dict (strict): each unit's parameter takes this rank's rows of it.
// Throws naming the keys missing, unexpected or of the wrong shape.
void load_full_state_dict(nn::Module& model, const nn::StateDict& state);

// `optimizer`'s state_dict (over model's parameters: the shards) with every state tensor shaped
// like its parameter's shard gathered whole: the state the optimizer over the unsharded
// parameters would have. On rank `to`; empty on the others. Collective.
optim::OptimizerState full_optimizer_state_dict(nn::Module& model, const optim::Optimizer& optimizer, int to);

// Loads a full optimizer state (as full_optimizer_state_dict returns): every state tensor shaped
// like its parameter is cut to this rank's rows.
void load_full_optimizer_state_dict(nn::Module& model, optim::Optimizer& optimizer, const optim::OptimizerState& state);

}  // namespace brisk::dist
