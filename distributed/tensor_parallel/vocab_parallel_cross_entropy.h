#pragma once
// tp::vocab_parallel_cross_entropy: the mean cross-entropy of logits whose classes (the
// vocabulary) are split over a tensor-parallel group, as a ColumnParallelLinear head without
// gather_output returns them, computed without gathering the logits (Megatron-LM's
// vocab_parallel_cross_entropy):
//
//   Tensor logits = head(h);                                      // [*, vocab_r] on each rank
//   Tensor loss = tp::vocab_parallel_cross_entropy(logits, targets, mesh.group("tp"));
//   loss.backward();   // loss: the same on every rank, F::cross_entropy of the whole logits
//
// Forward: three all-reduces of one value per row (the max, for stability; the sum of exp;
// the target's logit, which one rank holds), never of the vocabulary. Backward is local: the
// gradient of rank r's logits is (softmax - onehot(target)) / rows on its own columns.
// targets: int64 [*] in [0, vocab_size), the same on every rank. The mean divides by the number
// of rows (no ignore_index, no class weights). Not twice differentiable.
#include <cstdint>

#include "distributed/distributed.h"
#include "tensor/tensor.h"

namespace brisk::dist::tp {

// logits_shard: [*, vocab_r], this rank's columns of [*, vocab_size] by uneven_split.h's rule.
// vocab_size -1: the sum of the ranks' vocab_r (one more small all_gather).
Tensor vocab_parallel_cross_entropy(const Tensor& logits_shard, const Tensor& targets, const GroupPtr& group,
                                    int64_t vocab_size = -1);

}  // namespace brisk::dist::tp
