#pragma once
// dist::ReduceOp: how a reducing collective combines the ranks' tensors, as
// torch.distributed.ReduceOp. AVG is SUM divided by the number of ranks (integer dtypes
// divide with truncation toward zero).
#include <string_view>

#include "brisk/requires_cxx17.h"

namespace brisk::dist {

enum class ReduceOp { SUM, PRODUCT, MIN, MAX, AVG };

constexpr std::string_view reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM: return "SUM";
    case ReduceOp::PRODUCT: return "PRODUCT";
    case ReduceOp::MIN: return "MIN";
    case ReduceOp::MAX: return "MAX";
    case ReduceOp::AVG: return "AVG";
  }
  return "?";
}

}  // namespace brisk::dist
