#include "autograd/ops.h"
#include "autograd/record.h"
#include "nn/functional.h"
#include "tensor/native/ops.h"

namespace brisk::nn::functional {

using autograd::BackwardArgs;
using autograd::record;
using autograd::TensorList;

Tensor embedding(const Tensor& indices, const Tensor& weight, std::optional<int64_t> padding_idx) {
  BRISK_CHECK(weight.dim() == 2, "embedding: expected a 2-D weight [num_embeddings, embedding_dim], got {}",
              weight.describe());
  BRISK_CHECK(indices.dtype() == kInt64 || indices.dtype() == kInt32,
              "embedding: expected int64 or int32 indices, got {}", indices.describe());
  const int64_t rows = weight.size(0), dim = weight.size(1);
  if (padding_idx) {
    BRISK_CHECK(*padding_idx >= -rows && *padding_idx < rows,
                "embedding: padding_idx {} is out of range for {} embeddings", *padding_idx, rows);
    if (*padding_idx < 0) *padding_idx += rows;
  }
  Tensor flat = native::reshape(native::to(indices, weight.device(), kInt64), {indices.numel()});
  if (flat.numel() > 0) {
    int64_t low = native::reduce(ReduceOp::Min, flat, {}, false).item<int64_t>();
    int64_t high = native::reduce(ReduceOp::Max, flat, {}, false).item<int64_t>();
    BRISK_CHECK(low >= 0 && high < rows, "embedding: index {} is out of range for {} embeddings (weight {})",
                low < 0 ? low : high, rows, weight.sizes());
  }
  Shape out_shape = indices.sizes();
  out_shape.push_back(dim);
  Tensor out = native::view(native::index_select(weight, 0, flat), out_shape);
  return record("EmbeddingBackward", out, {weight}, {flat},
                [rows, dim, padding_idx](const BackwardArgs& a) -> TensorList {
                  Tensor grad = a.grad().reshape({-1, dim});
                  const Tensor& index = a.saved[0];
                  if (padding_idx) grad = masked_fill(grad, index.eq(*padding_idx).unsqueeze(1), 0);
                  Tensor zero = zeros({rows, dim}, grad.options());
                  return {scatter_add(zero, 0, index.unsqueeze(1).expand(grad.sizes()), grad)};
                });
}

}  // namespace brisk::nn::functional
