#pragma once
// The global action order of one pipeline step: every rank builds the same one from the
// schedule's computations (schedules.h), and runs its projection. Computing one order for all
// ranks, instead of letting each rank place its own messages, is what keeps the receives of
// every rank in the order of its peers' sends (PyTorch's interleaved schedules deadlocked
// until they did so: pytorch PR #127332).
//
//   PipelineSchedule schedule = PipelineSchedule::make(ScheduleKind::Interleaved1F1B,
//                                                      /*ranks=*/4, /*microbatches=*/8, /*chunks=*/2);
//   ScheduleReport report = check_schedule(schedule);   // schedule_check.h
//   for (const Action& a : schedule.program(rank)) ...    // what `rank` runs, in order
//
// The order interleaves the ranks in lock step: each round, every rank in turn runs its next
// computation if what it consumes has been produced, preceded by the receive of its input from
// another rank and followed by the send of its output. A round in which no rank can proceed
// means the computations themselves deadlock: an error names each rank's next computation.
#include <string>
#include <vector>

#include "distributed/pipeline/action.h"
#include "distributed/pipeline/schedules.h"

namespace brisk::dist::pipeline {

struct RankAction {
  int rank = 0;
  Action action;
};

class PipelineSchedule {
 public:
  static PipelineSchedule make(ScheduleKind kind, int ranks, int microbatches, int chunks = 1);
  // The order built from any per-rank computation orders (a schedule of one's own).
  static PipelineSchedule from_compute_orders(std::string name, const StageLayout& layout, int microbatches,
                                              const std::vector<std::vector<Action>>& compute_orders);

  const std::string& name() const { return name_; }
  const StageLayout& layout() const { return layout_; }
  int microbatches() const { return microbatches_; }
  const std::vector<RankAction>& global_order() const { return global_order_; }
  // The actions of `rank`, in global order.
  std::vector<Action> program(int rank) const;
  // Replaces `rank`'s program (a test breaking a schedule on purpose); the global order then
  // lists the new program after the other ranks' actions.
  void set_program(int rank, const std::vector<Action>& program);

 private:
  PipelineSchedule(std::string name, const StageLayout& layout, int microbatches)
      : name_(std::move(name)), layout_(layout), microbatches_(microbatches) {}

  std::string name_;
  StageLayout layout_;
  int microbatches_;
  std::vector<RankAction> global_order_;
};

}  // namespace brisk::dist::pipeline
