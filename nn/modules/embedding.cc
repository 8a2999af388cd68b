#include "nn/modules/embedding.h"

#include <ostream>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "nn/functional.h"
#include "nn/init.h"

namespace brisk::nn {

EmbeddingImpl::EmbeddingImpl(const EmbeddingOptions& options_) : options(options_) {
  const int64_t rows = options.num_embeddings();
  BRISK_CHECK(rows > 0 && options.embedding_dim() > 0,
              "Embedding: num_embeddings {} and embedding_dim {} must be positive", rows, options.embedding_dim());
  if (auto pad = options.padding_idx()) {
    BRISK_CHECK(*pad >= -rows && *pad < rows, "Embedding: padding_idx {} must be within num_embeddings {}", *pad, rows);
    if (*pad < 0) options.padding_idx(*pad + rows);
  }
  weight = register_parameter("weight", empty({rows, options.embedding_dim()}));
  reset_parameters();
}

void EmbeddingImpl::reset_parameters() {
  init::normal_(weight);
  if (auto pad = options.padding_idx()) {
    NoGradGuard no_grad;
    weight.select(0, *pad).fill_(0);
  }
}

Tensor EmbeddingImpl::forward(const Tensor& indices) {
  return functional::embedding(indices, weight, options.padding_idx());
}

void EmbeddingImpl::pretty_print(std::ostream& stream) const {
  stream << "Embedding(num_embeddings=" << options.num_embeddings() << ", embedding_dim=" << options.embedding_dim();
  if (options.padding_idx()) stream << ", padding_idx=" << *options.padding_idx();
  stream << ")";
}

}  // namespace brisk::nn
