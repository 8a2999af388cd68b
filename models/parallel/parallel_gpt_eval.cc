#include "models/parallel/parallel_gpt_eval.h"

#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "distributed/pipeline/tensor_message.h"

namespace brisk::models {

namespace {
constexpr int kEvalTag = 8;  // apart from a PipelineStage's streams and gather_gpt_state's
}  // namespace

double parallel_gpt_loss(ParallelGPTImpl& model, const Tensor& inputs, const Tensor& targets) {
  NoGradGuard no_grad;
  dist::ProcessGroup& pp = *model.groups.pp;
  const dist::pipeline::StageLayout& layout = model.layout;
  const std::vector<dist::pipeline::StageFunction> stages = model.stage_functions();
  std::vector<Tensor> x{inputs};
  Tensor loss = zeros({}, TensorOptions(kFloat64));
  for (int stage = 0; stage < layout.stages(); ++stage) {
    const int rank = layout.rank_of(stage);
    const int previous = stage > 0 ? layout.rank_of(stage - 1) : rank;
    if (rank != pp.rank()) continue;
    if (previous != rank) {
      dist::pipeline::MessageShapes shapes;
      x = dist::pipeline::recv_tensors(pp, previous, kEvalTag, shapes);
    }
    x = stages[layout.chunk_of(stage)](x);
    if (layout.is_last(stage)) {
      loss = model.loss_function()(x, {targets}).to(kFloat64);
    } else if (const int next = layout.rank_of(stage + 1); next != rank) {
      dist::pipeline::MessageShapes shapes;
      dist::pipeline::send_tensors(pp, x, next, kEvalTag, shapes).wait();
    }
  }
  // Only the last stage's rank holds the loss: the sum over pp gives it to every rank.
  if (!model.has_last_stage()) loss.zero_();
  pp.all_reduce(loss)->wait();
  return loss.item<double>();
}

}  // namespace brisk::models
