#include "distributed/pipeline/pipeline_stage.h"

#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "distributed/pipeline/microbatches.h"
#include "profiler/record.h"
#include "tensor/error.h"

namespace brisk::dist::pipeline {

namespace {

// What a stage receives becomes its leaves: detached, requiring grad where it can have one.
std::vector<Tensor> as_stage_inputs(const std::vector<Tensor>& tensors) {
  std::vector<Tensor> leaves;
  for (const Tensor& t : tensors) {
    if (!t.defined()) {
      leaves.emplace_back();
      continue;
    }
    Tensor leaf = t.detach();
    if (leaf.is_floating_point()) leaf.requires_grad_(true);
    leaves.push_back(leaf);
  }
  return leaves;
}

template <typename Map>
typename Map::mapped_type take(Map& map, const typename Map::key_type& key, const char* what, int mb, int stage) {
  auto it = map.find(key);
  BRISK_CHECK(it != map.end(), "PipelineStage: the {} of microbatch {} on stage {} is missing", what, mb, stage);
  auto value = std::move(it->second);
  map.erase(it);
  return value;
}

}  // namespace

PipelineStage::PipelineStage(std::shared_ptr<ProcessGroup> group, std::vector<StageFunction> chunks,
                             PipelineSchedule schedule, LossFunction loss)
    : group_(std::move(group)), chunks_(std::move(chunks)), schedule_(std::move(schedule)), loss_(std::move(loss)) {
  const StageLayout& layout = schedule_.layout();
  BRISK_CHECK(group_ && group_->size() == layout.ranks(),
              "PipelineStage: schedule '{}' has {} ranks but the process group has {}", schedule_.name(),
              layout.ranks(), group_ ? group_->size() : 0);
  BRISK_CHECK(static_cast<int>(chunks_.size()) == layout.chunks(),
              "PipelineStage: rank {} got {} chunks but schedule '{}' places {} per rank", group_->rank(),
              chunks_.size(), schedule_.name(), layout.chunks());
  report_ = check_schedule(schedule_);
  program_ = schedule_.program(group_->rank());
  next_receive_.assign(program_.size(), -1);
  if (group_->backend_name() == "nccl") return;  // receives in call order (pipeline_stage.h)
  std::map<Stream, size_t> last;                 // the latest receive of each stream so far
  for (size_t i = 0; i < program_.size(); ++i) {
    const Action& a = program_[i];
    if (!a.is_recv()) continue;
    auto [it, first] = last.try_emplace(Stream{a.peer, message_tag(a.kind)}, i);
    if (first) {
      first_receives_.push_back(i);
    } else {
      next_receive_[it->second] = static_cast<int>(i);
      it->second = i;
    }
  }
}

Tensor PipelineStage::step(const std::vector<Tensor>& inputs, const std::vector<Tensor>& targets) {
  const int m = schedule_.microbatches();
  BRISK_CHECK(!has_first_stage() || !inputs.empty(),
              "PipelineStage::step: rank {} holds the first stage but got no inputs", group_->rank());
  input_mbs_ = has_first_stage() ? split_microbatches(inputs, m) : std::vector<std::vector<Tensor>>{};
  target_mbs_ = has_last_stage() ? split_microbatches(targets, m) : std::vector<std::vector<Tensor>>{};
  loss_weights_.assign(m, 1.0 / m);
  if (has_last_stage() && !targets.empty()) {
    const std::vector<int64_t> rows = microbatch_rows(targets[0].size(0), m);
    for (int i = 0; i < m; ++i) loss_weights_[i] = static_cast<double>(rows[i]) / targets[0].size(0);
  }
  loss_sum_ = Tensor();
  BRISK_CHECK(posted_.empty(), "PipelineStage::step: rank {} holds receives of a step that failed", group_->rank());
  for (size_t index : first_receives_) post(index);
  {
    EnableGradGuard grad_on;
    for (size_t index = 0; index < program_.size(); ++index) run(index);
  }
  for (PendingSend& send : sends_) send.wait();
  sends_.clear();
  input_mbs_.clear();
  target_mbs_.clear();
  BRISK_CHECK(posted_.empty(), "PipelineStage::step: rank {} ended the step with receives posted", group_->rank());
  BRISK_CHECK(inputs_.empty() && outputs_.empty() && output_grads_.empty() && input_grads_.empty() && losses_.empty(),
              "PipelineStage::step: rank {} ended the step with microbatches not backwarded", group_->rank());
  BRISK_CHECK(deferred_weights_.empty(),
              "PipelineStage::step: rank {} ended the step with weight gradients not computed (microbatch {} on stage "
              "{} first)",
              group_->rank(), deferred_weights_.begin()->first.first, deferred_weights_.begin()->first.second);
  return loss_sum_;
}

void PipelineStage::run(size_t index) {
  const Action& a = program_[index];
  const int rank = group_->rank();
  profiler::RecordScope scope(
      profiler::Category::User, [&] { return "pipeline " + describe(a); },
      [&] {
        return profiler::Args{{"rank", std::to_string(rank)},
                              {"microbatch", std::to_string(a.microbatch)},
                              {"stage", std::to_string(a.stage)}};
      });
  const Key key{a.microbatch, a.stage};
  const int tag = message_tag(a.kind);
  switch (a.kind) {
    case ActionKind::Forward: forward(a.microbatch, a.stage); break;
    case ActionKind::Backward: backward(a.microbatch, a.stage); break;
    case ActionKind::BackwardInput: backward_input(a.microbatch, a.stage); break;
    case ActionKind::BackwardWeight: backward_weight(a.microbatch, a.stage); break;
    case ActionKind::SendActivation: {
      const auto it = outputs_.find(key);
      BRISK_CHECK(it != outputs_.end(),
                  "PipelineStage: rank {} sends the outputs of microbatch {} on stage {} before "
                  "computing them",
                  rank, a.microbatch, a.stage);
      sends_.push_back(send_tensors(*group_, it->second, a.peer, tag, sent_shapes_[{a.peer, tag}]));
      break;
    }
    case ActionKind::SendGradient:
      sends_.push_back(send_tensors(*group_, take(input_grads_, key, "input gradients", a.microbatch, a.stage), a.peer,
                                    tag, sent_shapes_[{a.peer, tag}]));
      break;
    case ActionKind::RecvActivation: inputs_[key] = as_stage_inputs(receive(index)); break;
    case ActionKind::RecvGradient: output_grads_[key] = receive(index); break;
  }
}

void PipelineStage::post(size_t index) {
  const Action& a = program_[index];
  const Stream stream{a.peer, message_tag(a.kind)};
  posted_.emplace(stream, post_recv_tensors(*group_, a.peer, stream.second, received_shapes_[stream]));
}

std::vector<Tensor> PipelineStage::receive(size_t index) {
  const Action& a = program_[index];
  auto it = posted_.find(Stream{a.peer, message_tag(a.kind)});
  if (it == posted_.end()) {
    post(index);
    it = posted_.find(Stream{a.peer, message_tag(a.kind)});
  }
  PendingRecv pending = std::move(it->second);
  posted_.erase(it);
  std::vector<Tensor> received = pending.wait();
  if (next_receive_[index] >= 0) post(static_cast<size_t>(next_receive_[index]));
  return received;
}

void PipelineStage::forward(int mb, int stage) {
  const StageLayout& layout = schedule_.layout();
  const Key key{mb, stage};
  std::vector<Tensor> in = layout.is_first(stage) ? input_mbs_.at(mb) : inputs_.at(key);
  std::vector<Tensor> out = chunks_[layout.chunk_of(stage)](in);
  if (layout.is_last(stage)) {
    Tensor loss = loss_(out, target_mbs_.at(mb));
    BRISK_CHECK(loss.defined() && loss.numel() == 1,
                "PipelineStage: the loss of microbatch {} must be one value, got shape [{}]", mb,
                loss.defined() ? fmt::format("{}", fmt::join(loss.sizes(), ", ")) : "undefined");
    Tensor weighted = loss * loss_weights_[mb];
    Tensor value = weighted.detach().reshape({});
    loss_sum_ = loss_sum_.defined() ? loss_sum_ + value : value;
    losses_[mb] = weighted;
    return;
  }
  if (layout.rank_of(stage + 1) == layout.rank_of(stage)) {
    inputs_[{mb, stage + 1}] = as_stage_inputs(out);  // the next stage is this rank's too
  }
  outputs_[key] = std::move(out);
}

std::pair<std::vector<Tensor>, std::vector<Tensor>> PipelineStage::take_backward_roots(int mb, int stage) {
  if (schedule_.layout().is_last(stage)) return {{take(losses_, mb, "loss", mb, stage)}, {Tensor()}};
  const Key key{mb, stage};
  std::vector<Tensor> outputs = take(outputs_, key, "outputs", mb, stage);
  std::vector<Tensor> grads = take(output_grads_, key, "output gradients", mb, stage);
  BRISK_CHECK(grads.size() == outputs.size(),
              "PipelineStage: stage {} returned {} tensors for microbatch {} but {} gradients came back", stage,
              outputs.size(), mb, grads.size());
  std::vector<Tensor> roots, root_grads;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].defined() && outputs[i].requires_grad() && grads[i].defined()) {
      roots.push_back(outputs[i]);
      root_grads.push_back(grads[i]);
    }
  }
  return {roots, root_grads};
}

void PipelineStage::pass_input_grads(int mb, int stage, std::vector<Tensor> grads) {
  const StageLayout& layout = schedule_.layout();
  if (layout.rank_of(stage - 1) == layout.rank_of(stage)) {
    output_grads_[{mb, stage - 1}] = std::move(grads);  // the previous stage is this rank's too
  } else {
    input_grads_[{mb, stage}] = std::move(grads);
  }
}

void PipelineStage::backward(int mb, int stage) {
  auto [roots, root_grads] = take_backward_roots(mb, stage);
  if (!roots.empty()) autograd::backward(roots, root_grads);
  if (schedule_.layout().is_first(stage)) return;
  std::vector<Tensor> grads;
  for (const Tensor& t : take(inputs_, Key{mb, stage}, "inputs", mb, stage)) {
    grads.push_back(t.defined() && t.requires_grad() ? t.grad() : Tensor());
  }
  pass_input_grads(mb, stage, std::move(grads));
}

void PipelineStage::backward_input(int mb, int stage) {
  const bool first = schedule_.layout().is_first(stage);
  auto [roots, root_grads] = take_backward_roots(mb, stage);
  // The first stage's inputs are the batch: no gradient for them, the weight pass does it all.
  std::vector<Tensor> in = first ? std::vector<Tensor>{} : take(inputs_, Key{mb, stage}, "inputs", mb, stage);
  autograd::InputGradients computed;
  if (!roots.empty()) computed = autograd::backward_input(roots, root_grads, in);
  computed.grads.resize(in.size());  // undefined for every input when there were no roots
  deferred_weights_[{mb, stage}] = std::move(computed.weights);
  if (!first) pass_input_grads(mb, stage, std::move(computed.grads));
}

void PipelineStage::backward_weight(int mb, int stage) {
  autograd::backward_weight(take(deferred_weights_, Key{mb, stage}, "held weight gradients", mb, stage));
}

}  // namespace brisk::dist::pipeline
