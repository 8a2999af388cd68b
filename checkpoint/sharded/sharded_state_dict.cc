#include "checkpoint/sharded/sharded_state_dict.h"

#include <utility>

#include "tensor/error.h"

namespace brisk::checkpoint {

int64_t dim0_rows(const Shape& shape) { return shape.empty() ? 1 : shape[0]; }

Shape local_shape(const Shape& global_shape, dist::RowRange rows) {
  Shape out = global_shape.empty() ? Shape{1} : global_shape;
  out[0] = rows.rows;
  return out;
}

ShardedTensor sharded(Tensor local, Shape global_shape, dist::RowRange rows) {
  BRISK_CHECK(local.defined(), "checkpoint::sharded: the local tensor of a {} tensor is undefined", global_shape);
  BRISK_CHECK(rows.begin >= 0 && rows.rows >= 0 && rows.begin + rows.rows <= dim0_rows(global_shape),
              "checkpoint::sharded: rows [{}, {}) do not lie in dim 0 of a {} tensor", rows.begin,
              rows.begin + rows.rows, global_shape);
  const Shape expected = local_shape(global_shape, rows);
  BRISK_CHECK(local.sizes() == expected,
              "checkpoint::sharded: rows [{}, {}) of a {} tensor are shaped {}, but the local tensor is {}", rows.begin,
              rows.begin + rows.rows, global_shape, expected, local.describe());
  return {std::move(global_shape), false, rows, std::move(local)};
}

ShardedTensor replicated(Tensor full) {
  BRISK_CHECK(full.defined(), "checkpoint::replicated: the tensor is undefined");
  Shape shape = full.sizes();
  dist::RowRange all{0, dim0_rows(shape)};
  Tensor local = shape.empty() ? full.view({1}) : full;
  return {std::move(shape), true, all, std::move(local)};
}

ShardedStateDict replicated(const nn::StateDict& state) {
  ShardedStateDict out;
  for (const auto& [name, tensor] : state) out.insert(name, replicated(tensor));
  return out;
}

}  // namespace brisk::checkpoint
