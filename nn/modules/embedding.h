#pragma once
// nn::Embedding: a lookup table of num_embeddings vectors of embedding_dim, as
// torch.nn.Embedding. Initialized from N(0, 1), with the padding_idx row zero.
#include <cstdint>
#include <iosfwd>
#include <optional>

#include "nn/module.h"
#include "nn/module_holder.h"
#include "tensor/arg.h"

namespace brisk::nn {

struct EmbeddingOptions {
  EmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  BRISK_ARG(int64_t, num_embeddings);
  BRISK_ARG(int64_t, embedding_dim);
  // This row gets no gradient (negative counts from the end).
  BRISK_ARG(std::optional<int64_t>, padding_idx);
};

class EmbeddingImpl : public Module {
 public:
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingImpl(const EmbeddingOptions& options);

  // int64 indices [*] -> [*, embedding_dim].
  Tensor forward(const Tensor& indices) override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  EmbeddingOptions options;
  Tensor weight;  // [num_embeddings, embedding_dim]
};

BRISK_MODULE(Embedding);

}  // namespace brisk::nn
