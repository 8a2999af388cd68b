#pragma once
// Collation: turning the examples of one batch into a Batch.
#include <functional>
#include <vector>

#include "data/example.h"

namespace brisk::data {

// A user's collation, e.g. padding variable-length sequences to the longest of the batch.
using Collate = std::function<Batch(std::vector<Example<>> examples)>;

// torch's default_collate for (data, target) pairs: stacks the examples' data into [B, ...]
// and their targets into [B, ...] (0-dim targets, e.g. class indices, into [B]). Every
// example's data must have the same shape, dtype and device, and so must every target;
// otherwise a brisk::Error names the two examples that differ.
// Targets that are all undefined give an undefined batch target.
Batch default_collate(std::vector<Example<>> examples);

// Stacks equally shaped tensors along a new first dim; CPU tensors are copied with one
// memcpy each. `what` ("data", "target") names them in errors.
Tensor stack_examples(const std::vector<Tensor>& tensors, const char* what);

}  // namespace brisk::data
