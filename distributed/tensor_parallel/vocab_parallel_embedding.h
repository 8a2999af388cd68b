#pragma once
// tp::VocabParallelEmbedding: nn::Embedding with its rows (the vocabulary) split over a
// tensor-parallel group (Megatron-LM's VocabParallelEmbedding): rank r holds rows vocab_range
// of the weight [num_embeddings, dim]. Each rank looks up the ids in its range, zeroes the
// others' positions, and the group sums the results (reduce_from_region: an all-reduce), so
// every rank gets the whole [*, dim]; with sequence_parallel the sum is reduce-scattered along
// dim 0 instead, each rank keeping its rows (for a sequence-parallel layer after it).
//
//   tp::VocabParallelEmbedding embed(tp::VocabParallelEmbeddingOptions(50257, 768), mesh.group("tp"));
//   Tensor h = embed(ids);   // ids: int64 [*] in [0, 50257), the same on every rank -> [*, 768]
//
// num_embeddings need not be divisible by the group size (uneven_split.h); a rank may hold no
// row (5 over 4 ranks: 2, 2, 1, 0). Ids outside [0, num_embeddings) are an error (on the CPU,
// checked at the call). Initialized from N(0, 1) as nn::Embedding; load_full_state_dict
// (full_state_dict.h) loads an unsplit nn::Embedding's state exactly. No padding_idx.
#include <cstdint>
#include <iosfwd>

#include "distributed/tensor_parallel/parallel_layer.h"
#include "nn/module.h"
#include "nn/module_holder.h"
#include "tensor/arg.h"

namespace brisk::dist::tp {

struct VocabParallelEmbeddingOptions {
  VocabParallelEmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  BRISK_ARG(int64_t, num_embeddings);
  BRISK_ARG(int64_t, embedding_dim);
  // Reduce-scatter the output along dim 0 instead of all-reducing it.
  BRISK_ARG(bool, sequence_parallel) = false;
};

class VocabParallelEmbeddingImpl : public nn::Module, public TensorParallelLayer {
 public:
  // group nullptr: the default group.
  VocabParallelEmbeddingImpl(const VocabParallelEmbeddingOptions& options, GroupPtr group);

  // int64 ids [*] -> [*, embedding_dim] (sequence_parallel: this rank's rows of dim 0).
  Tensor forward(const Tensor& ids) override;
  void reset_parameters();
  // This rank's rows of the vocabulary.
  RowRange vocab_range() const { return split(options.num_embeddings()); }

  std::vector<ParallelParameter> parallel_parameters() const override;
  std::string options_text() const override;
  void pretty_print(std::ostream& stream) const override;

  VocabParallelEmbeddingOptions options;
  Tensor weight;  // [vocab_r, embedding_dim]
};

BRISK_MODULE(VocabParallelEmbedding);

}  // namespace brisk::dist::tp
