#pragma once
// The state of a tensor-parallel model as the unsplit model has it, and back: what lets a
// checkpoint of plain nn::Linear / nn::Embedding layers load into a model of
// ColumnParallelLinear, RowParallelLinear and VocabParallelEmbedding layers (the same names,
// the same keys), whatever the group sizes, and the trained model save one again.
//
//   tp::load_full_state_dict(*model, plain_model->state_dict());   // each rank keeps its parts
//   ...
//   nn::StateDict full = tp::full_state_dict(*model);               // collective; on every rank
//
// Every parameter of a layer that derives from TensorParallelLayer (parallel_layer.h) is split
// or gathered along its split dim over the layer's group; every other tensor (a replicated
// bias, a LayerNorm, buffers) is taken as it is.
#include "nn/module.h"

namespace brisk::dist::tp {

// The model's state_dict with every split parameter all-gathered whole (uneven_split.h), in the
// state_dict's order. Collective over each tensor-parallel layer's group, one all_gather per
// split parameter: every rank of those groups calls it.
nn::StateDict full_state_dict(nn::Module& model);

// Loads an unsplit state_dict (strict, as Module::load_state_dict): each split parameter takes
// this rank's part of its whole tensor. Throws naming a key whose tensor has not the unsplit
// layer's shape, and (load_state_dict) the keys missing or unexpected. Local: no collective.
void load_full_state_dict(nn::Module& model, const nn::StateDict& state);

}  // namespace brisk::dist::tp
