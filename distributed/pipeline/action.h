#pragma once
// What a pipeline rank does, one Action at a time: compute a microbatch's forward or backward
// on one of its stages, or move that microbatch's activations or gradients to or from the
// neighbouring stage's rank. A schedule (schedules.h) orders the computations; the global
// order (global_order.h) adds the messages; the checker (schedule_check.h) verifies the
// result; PipelineStage (pipeline_stage.h) runs it.
//
//   StageLayout layout(/*ranks=*/2, /*chunks=*/2);   // 4 stages: rank 0 holds 0 and 2
//   layout.rank_of(3) == 1; layout.chunk_of(3) == 1;
//   describe(Action{ActionKind::Forward, 1, 2})      // "forward mb 1 stage 2"
//   describe(Action{ActionKind::BackwardWeight, 0, 1})  // "backward weight mb 0 stage 1"
#include <string>

namespace brisk::dist::pipeline {

// Stages 0 .. ranks*chunks-1 run input to loss. Stage s lives on rank s % ranks as that rank's
// chunk s / ranks (Megatron's interleaving: with 2 chunks on 2 ranks, rank 0 holds stages 0
// and 2), so every stage boundary crosses ranks when there are two or more.
class StageLayout {
 public:
  StageLayout(int ranks, int chunks);
  int ranks() const { return ranks_; }
  int chunks() const { return chunks_; }
  int stages() const { return ranks_ * chunks_; }
  int rank_of(int stage) const { return stage % ranks_; }
  int chunk_of(int stage) const { return stage / ranks_; }
  int stage_of(int rank, int chunk) const { return chunk * ranks_ + rank; }
  bool is_first(int stage) const { return stage == 0; }
  bool is_last(int stage) const { return stage == stages() - 1; }

 private:
  int ranks_;
  int chunks_;
};

enum class ActionKind {
  Forward,
  Backward,        // the whole backward: input and weight gradients
  BackwardInput,   // the gradients of the stage's inputs only (autograd/split_backward.h) ...
  BackwardWeight,  // ... and later those of its weights, from what BackwardInput held
  SendActivation,  // this stage's outputs to stage + 1
  RecvActivation,  // this stage's inputs from stage - 1
  SendGradient,    // the gradient of this stage's inputs to stage - 1
  RecvGradient,    // the gradient of this stage's outputs from stage + 1
};

// `stage` is always the stage on the acting rank (the sender's for a send, the receiver's for
// a receive); `peer` is the other rank of a message (-1 for computations).
struct Action {
  ActionKind kind = ActionKind::Forward;
  int microbatch = 0;
  int stage = 0;
  int peer = -1;

  bool is_compute() const {
    return kind == ActionKind::Forward || kind == ActionKind::Backward || kind == ActionKind::BackwardInput ||
           kind == ActionKind::BackwardWeight;
  }
  // Whether it computes the gradient of the stage's inputs, which the previous stage consumes.
  bool is_input_backward() const { return kind == ActionKind::Backward || kind == ActionKind::BackwardInput; }
  bool is_send() const { return kind == ActionKind::SendActivation || kind == ActionKind::SendGradient; }
  bool is_recv() const { return kind == ActionKind::RecvActivation || kind == ActionKind::RecvGradient; }
  bool operator==(const Action& o) const {
    return kind == o.kind && microbatch == o.microbatch && stage == o.stage && peer == o.peer;
  }
  bool operator!=(const Action& o) const { return !(*this == o); }
};

// "forward mb 1 stage 2", "backward input mb 1 stage 2", "send activation mb 0 stage 1 to rank 2", "recv gradient mb 3
// stage 0 from rank 1".
std::string describe(const Action& action);

// The point-to-point tag of a message: activations and gradients travel as two streams, each
// matched in order between a pair of ranks (with two ranks, both flow the same way).
int message_tag(ActionKind kind);

}  // namespace brisk::dist::pipeline
