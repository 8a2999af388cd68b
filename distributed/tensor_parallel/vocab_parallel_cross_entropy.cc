#include "distributed/tensor_parallel/vocab_parallel_cross_entropy.h"

#include <limits>

#include "autograd/function.h"
#include "autograd/ops.h"
#include "distributed/tensor_parallel/uneven_split.h"

namespace brisk::dist::tp {

namespace {

using autograd::AutogradContext;
using autograd::TensorList;

ProcessGroup& group_or_default(const GroupPtr& group) { return group ? *group : *default_group(); }

// logits [rows, vocab_r] of columns [begin, begin + vocab_r); targets [rows].
struct VocabParallelCrossEntropy : autograd::Function<VocabParallelCrossEntropy> {
  static constexpr bool once_differentiable = true;

  static Tensor forward(AutogradContext* ctx, const Tensor& logits, const Tensor& targets, const GroupPtr& group,
                        int64_t begin) {
    ProcessGroup& g = group_or_default(group);
    const int64_t rows = logits.size(0), vocab_r = logits.size(1);
    const TensorOptions options = TensorOptions(logits.dtype()).device(logits.device());
    // [rows]: each row's max over the whole vocabulary (a rank without columns offers -inf).
    Tensor max =
        vocab_r > 0 ? logits.amax({1}).contiguous() : full({rows}, -std::numeric_limits<double>::infinity(), options);
    g.all_reduce(max, ReduceOp::MAX)->wait();
    const Tensor shifted = logits - max.unsqueeze(1);
    const Tensor exp = shifted.exp();
    Tensor sum_exp = exp.sum({1}).contiguous();
    g.all_reduce(sum_exp, ReduceOp::SUM)->wait();
    // The target's shifted logit, from the one rank whose columns hold it.
    const Tensor inside = targets.ge(begin).logical_and(targets.lt(begin + vocab_r));
    const Tensor local_targets = (targets - begin).masked_fill(inside.logical_not(), 0);
    Tensor picked =
        vocab_r > 0 ? shifted.gather(1, local_targets.unsqueeze(1)).squeeze(1).masked_fill(inside.logical_not(), 0.0)
                    : zeros({rows}, options);
    picked = picked.contiguous();
    g.all_reduce(picked, ReduceOp::SUM)->wait();
    ctx->save_for_backward({exp / sum_exp.unsqueeze(1), local_targets, inside});
    return (sum_exp.log() - picked).mean();
  }

  static TensorList backward(AutogradContext* ctx, TensorList grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    const Tensor& softmax = saved[0];
    const int64_t rows = softmax.size(0), vocab_r = softmax.size(1);
    Tensor grad = softmax;
    if (vocab_r > 0) {
      const Tensor onehot = one_hot(saved[1], vocab_r).to(softmax.dtype()) * saved[2].unsqueeze(1).to(softmax.dtype());
      grad = softmax - onehot;
    }
    return {grad * (grad_outputs[0] / static_cast<double>(rows)), Tensor(), Tensor(), Tensor()};
  }
};

}  // namespace

Tensor vocab_parallel_cross_entropy(const Tensor& logits_shard, const Tensor& targets, const GroupPtr& group,
                                    int64_t vocab_size) {
  ProcessGroup& g = group_or_default(group);
  BRISK_CHECK(logits_shard.dim() >= 1 && targets.dtype() == kInt64 &&
                  targets.sizes() == Shape(logits_shard.sizes().begin(), logits_shard.sizes().end() - 1),
              "vocab_parallel_cross_entropy: logits {} and targets {}: expected int64 targets shaped like the "
              "logits without their last dim",
              logits_shard.describe(), targets.describe());
  const int64_t vocab_r = logits_shard.size(-1);
  if (vocab_size < 0) vocab_size = gathered_size(vocab_r, g);
  const RowRange columns = split_range(vocab_size, g.size(), g.rank());
  BRISK_CHECK(vocab_r == columns.rows,
              "vocab_parallel_cross_entropy: rank {} of {} holds {} logits per row; its part of a vocabulary of {} is "
              "{}",
              g.rank(), g.size(), vocab_r, vocab_size, columns.rows);
  if (targets.device() == kCPU && targets.numel() > 0) {
    const int64_t low = targets.min().item<int64_t>(), high = targets.max().item<int64_t>();
    BRISK_CHECK(low >= 0 && high < vocab_size,
                "vocab_parallel_cross_entropy: targets range over [{}, {}], outside the vocabulary [0, {})", low, high,
                vocab_size);
  }
  const int64_t rows = targets.numel();
  return VocabParallelCrossEntropy::apply(logits_shard.reshape({rows, vocab_r}), targets.reshape({rows}), group,
                                          columns.begin);
}

}  // namespace brisk::dist::tp
