#include "distributed/tensor_parallel/vocab_parallel_embedding.h"

#include <ostream>

#include <fmt/format.h>

#include "autograd/ops.h"
#include "distributed/tensor_parallel/mappings.h"
#include "nn/functional.h"
#include "nn/init.h"

namespace brisk::dist::tp {

VocabParallelEmbeddingImpl::VocabParallelEmbeddingImpl(const VocabParallelEmbeddingOptions& options_, GroupPtr group)
    : TensorParallelLayer(std::move(group)), options(options_) {
  BRISK_CHECK(options.num_embeddings() > 0 && options.embedding_dim() > 0,
              "VocabParallelEmbedding: num_embeddings {} and embedding_dim {} must be positive",
              options.num_embeddings(), options.embedding_dim());
  weight = register_parameter("weight", empty({vocab_range().rows, options.embedding_dim()}));
  reset_parameters();
}

void VocabParallelEmbeddingImpl::reset_parameters() { nn::init::normal_(weight); }

Tensor VocabParallelEmbeddingImpl::forward(const Tensor& ids) {
  BRISK_CHECK(ids.dtype() == kInt64, "{}: ids must be int64, got {}", options_text(), ids.describe());
  if (ids.device() == kCPU && ids.numel() > 0) {
    const int64_t low = ids.min().item<int64_t>(), high = ids.max().item<int64_t>();
    BRISK_CHECK(low >= 0 && high < options.num_embeddings(), "{}: ids range over [{}, {}], outside [0, {})",
                options_text(), low, high, options.num_embeddings());
  }
  const RowRange range = vocab_range();
  Tensor local;
  if (range.rows == 0) {
    // No row here: the lookup as the product of the ids' one-hot rows (empty) with the weight
    // (empty): zeros that, as on the other ranks, depend on the weight (its gradient is empty).
    Shape one_hot_shape = ids.sizes();
    one_hot_shape.push_back(0);
    local = matmul(zeros(one_hot_shape, TensorOptions(weight.dtype()).device(weight.device())), weight);
  } else {
    const Tensor outside = ids.lt(range.begin).logical_or(ids.ge(range.begin + range.rows));
    const Tensor local_ids = (ids - range.begin).masked_fill(outside, 0);
    local = nn::functional::embedding(local_ids, weight).masked_fill(outside.unsqueeze(-1), 0.0);
  }
  return options.sequence_parallel() ? reduce_scatter_to_sequence_region(local, group())
                                     : reduce_from_region(local, group());
}

std::vector<ParallelParameter> VocabParallelEmbeddingImpl::parallel_parameters() const {
  return {{"weight", {options.num_embeddings(), options.embedding_dim()}, 0}};
}

std::string VocabParallelEmbeddingImpl::options_text() const {
  return fmt::format("VocabParallelEmbedding(num_embeddings={}, embedding_dim={}, sequence_parallel={})",
                     options.num_embeddings(), options.embedding_dim(), options.sequence_parallel());
}

void VocabParallelEmbeddingImpl::pretty_print(std::ostream& stream) const { stream << describe(); }

}  // namespace brisk::dist::tp
