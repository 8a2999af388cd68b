#pragma once
// PipelineStage: one rank's part of a pipeline-parallel model. It holds the rank's chunks
// (the stages StageLayout gives it: one, or `chunks` for interleaving) and runs, each step, the
// rank's projection of the schedule's global order (pipeline_schedule.h), after the checker
// (schedule_check.h) accepted it at construction.
//
//   // Rank r of a 2-stage pipeline over `group`: stage r is layers[r].
//   PipelineSchedule schedule = PipelineSchedule::make(ScheduleKind::OneFOneB, 2, /*microbatches=*/4);
//   PipelineStage stage(group, {[&](const std::vector<Tensor>& x) { return std::vector<Tensor>{layers[r](x[0])}; }},
//                       schedule, [](const std::vector<Tensor>& out, const std::vector<Tensor>& y) {
//                         return nn::functional::cross_entropy(out[0], y[0]);
//                       });
//   optimizer.zero_grad();
//   Tensor loss = stage.step({images}, {labels});  // images read on rank 0, labels on rank 1
//   optimizer.step();                              // each rank steps its own chunks' parameters
//
// The batch: the first stage's rank passes the inputs, the last stage's rank the targets
// (other ranks may pass nothing); both are split into microbatches along dim 0
// (microbatches.h), so the batch size may change from step to step as long as it has at least
// one row per microbatch.
// Chunks: a chunk maps its stage's input tensors to its output tensors, the next stage's
// inputs; it may return several (a skip connection carried across stages) and their number
// and shapes may vary: every message carries its shapes (tensor_message.h). The first stage's
// chunk gets the microbatch of the inputs.
// The loss: `loss(outputs of the last stage, microbatch of the targets)` returns the mean loss
// of the microbatch; it is weighted by the microbatch's share of the rows (1/m when the rows
// divide evenly), so that the sum over microbatches, and the sum of their gradients, are the
// full batch's mean loss and its gradient, as one process computes them. Without targets the
// weight is 1/m.
// Gradients accumulate in the parameters' .grad over the microbatches (zero them between
// steps, as without a pipeline). step() returns the loss of the batch on the last stage's rank
// and an undefined tensor on the others. A step that throws (a peer failed, a chunk raised)
// leaves the stage unusable: its peers' message streams are no longer in step with it.
//
// Receives are posted ahead: each stream (peer, tag) keeps its next receive of the step posted,
// the first ones when the step starts and each next one as soon as the one before it on the
// stream has been received, so a message lands in posted buffers whenever its sender sends it
// (tensor_message.h); none is posted past the step's last action, none is left posted after
// it. This needs a group that completes each receive when its message comes, whatever other
// receives wait (Gloo and MPI wait for each stream on its own thread: queued_group.h). Over
// NCCL, whose point-to-point operations run in call order on one stream, a receive posted early
// would hold up the sends issued after it: there each receive is posted when its action comes up.
//
// A split backward (BackwardInput, BackwardWeight: the zb-h1 schedule) computes the gradients
// of the stage's inputs first, holding what the weights' gradients need until the weight
// backward (autograd/split_backward.h); the sum is the whole backward's work, not more.
//
// Tensors received from another stage become leaves that require grad (floating dtypes), so
// their gradients can be sent back; an output with no gradient (integer, or unused by the
// loss) sends an undefined one. Each action is a profiler event (Category::User) named
// "pipeline <action>", e.g. "pipeline forward mb 0 stage 1", with the args rank, microbatch and
// stage (pipeline_timeline.h measures the bubble from them).
#include <functional>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "autograd/split_backward.h"
#include "distributed/pipeline/pipeline_schedule.h"
#include "distributed/pipeline/schedule_check.h"
#include "distributed/pipeline/tensor_message.h"
#include "distributed/process_group.h"

namespace brisk::dist::pipeline {

using StageFunction = std::function<std::vector<Tensor>(const std::vector<Tensor>& inputs)>;
using LossFunction = std::function<Tensor(const std::vector<Tensor>& outputs, const std::vector<Tensor>& targets)>;

class PipelineStage {
 public:
  // `chunks[c]` is stage schedule.layout().stage_of(group->rank(), c). The group's size must be
  // the layout's ranks; the schedule is checked here (an error names what is wrong).
  PipelineStage(std::shared_ptr<ProcessGroup> group, std::vector<StageFunction> chunks, PipelineSchedule schedule,
                LossFunction loss);

  Tensor step(const std::vector<Tensor>& inputs, const std::vector<Tensor>& targets);

  const PipelineSchedule& schedule() const { return schedule_; }
  // The checker's report on the schedule (bubble, peak activations, messages).
  const ScheduleReport& report() const { return report_; }
  bool has_first_stage() const { return group_->rank() == schedule_.layout().rank_of(0); }
  bool has_last_stage() const { return group_->rank() == schedule_.layout().rank_of(schedule_.layout().stages() - 1); }

 private:
  using Key = std::pair<int, int>;     // (microbatch, stage)
  using Stream = std::pair<int, int>;  // (peer, tag) of a receive

  void run(size_t index);
  // The receive of program_[index]: waits for its posted receive (posted now if none is) and
  // posts the next one of its stream.
  std::vector<Tensor> receive(size_t index);
  void post(size_t index);
  void forward(int mb, int stage);
  void backward(int mb, int stage);
  void backward_input(int mb, int stage);
  void backward_weight(int mb, int stage);
  // The roots of the backward of (mb, stage) and their gradients: the weighted loss on the last
  // stage, else the outputs with a gradient received for them.
  std::pair<std::vector<Tensor>, std::vector<Tensor>> take_backward_roots(int mb, int stage);
  // Hands the gradients of the inputs of (mb, stage) to the previous stage.
  void pass_input_grads(int mb, int stage, std::vector<Tensor> grads);

  std::shared_ptr<ProcessGroup> group_;
  std::vector<StageFunction> chunks_;
  PipelineSchedule schedule_;
  std::vector<Action> program_;
  // Receives posted ahead: the first receive of each stream in the program, and for each
  // receive the next one on its stream (-1: none, or not posted ahead).
  std::vector<size_t> first_receives_;
  std::vector<int> next_receive_;
  LossFunction loss_;
  ScheduleReport report_;

  // One step's state.
  std::vector<std::vector<Tensor>> input_mbs_, target_mbs_;
  std::vector<double> loss_weights_;
  std::map<Key, std::vector<Tensor>> inputs_;        // each stage's inputs (leaves), until its backward
  std::map<Key, std::vector<Tensor>> outputs_;       // its outputs (with their graph), until its backward
  std::map<Key, std::vector<Tensor>> output_grads_;  // received for its outputs
  std::map<Key, std::vector<Tensor>> input_grads_;   // computed for its inputs, until sent
  std::map<int, Tensor> losses_;                     // weighted, per microbatch, until backward
  // The weight gradients each BackwardInput left for its BackwardWeight.
  std::map<Key, autograd::DeferredWeightGradients> deferred_weights_;
  Tensor loss_sum_;
  std::vector<PendingSend> sends_;
  std::map<Stream, PendingRecv> posted_;  // at most one per stream
  // The shapes of each stream's last message, kept across steps: (peer, tag) -> shapes.
  std::map<std::pair<int, int>, MessageShapes> sent_shapes_, received_shapes_;
};

}  // namespace brisk::dist::pipeline
