#include "distributed/pipeline/pipeline_schedule.h"

#include <set>
#include <tuple>

#include "tensor/error.h"

namespace brisk::dist::pipeline {

namespace {

using Done = std::set<std::tuple<ActionKind, int, int>>;  // (kind, microbatch, stage)

bool is_done(const Done& done, ActionKind kind, int mb, int stage) { return done.count({kind, mb, stage}) > 0; }

// Whether the gradient of `stage`'s inputs is computed, by a whole or an input backward.
bool has_input_gradient(const Done& done, int mb, int stage) {
  return is_done(done, ActionKind::Backward, mb, stage) || is_done(done, ActionKind::BackwardInput, mb, stage);
}

// The computation that must precede `a`, if any is still missing; else "".
std::string missing_input(const StageLayout& layout, const Done& done, const Action& a) {
  const int mb = a.microbatch;
  if (a.kind == ActionKind::Forward) {
    if (!layout.is_first(a.stage) && !is_done(done, ActionKind::Forward, mb, a.stage - 1)) {
      return describe(Action{ActionKind::Forward, mb, a.stage - 1});
    }
    return "";
  }
  if (a.kind == ActionKind::BackwardWeight) {
    if (!is_done(done, ActionKind::BackwardInput, mb, a.stage)) {
      return describe(Action{ActionKind::BackwardInput, mb, a.stage});
    }
    return "";
  }
  if (!is_done(done, ActionKind::Forward, mb, a.stage)) return describe(Action{ActionKind::Forward, mb, a.stage});
  if (!layout.is_last(a.stage) && !has_input_gradient(done, mb, a.stage + 1)) {
    return describe(Action{ActionKind::Backward, mb, a.stage + 1});  // or its input backward
  }
  return "";
}

// `a` with the receive of its input before it and the send of its output after it, where the
// neighbouring stage lives on another rank.
std::vector<Action> with_messages(const StageLayout& layout, const Action& a) {
  if (a.kind == ActionKind::BackwardWeight) return {a};  // its gradients stay on the stage
  const int rank = layout.rank_of(a.stage), mb = a.microbatch;
  const bool forward = a.kind == ActionKind::Forward;
  const int from = forward ? a.stage - 1 : a.stage + 1;  // the stage whose output a consumes
  const int to = forward ? a.stage + 1 : a.stage - 1;    // the stage that consumes a's output
  const bool has_from = forward ? !layout.is_first(a.stage) : !layout.is_last(a.stage);
  const bool has_to = forward ? !layout.is_last(a.stage) : !layout.is_first(a.stage);
  std::vector<Action> actions;
  if (has_from && layout.rank_of(from) != rank) {
    actions.push_back(
        {forward ? ActionKind::RecvActivation : ActionKind::RecvGradient, mb, a.stage, layout.rank_of(from)});
  }
  actions.push_back(a);
  if (has_to && layout.rank_of(to) != rank) {
    actions.push_back(
        {forward ? ActionKind::SendActivation : ActionKind::SendGradient, mb, a.stage, layout.rank_of(to)});
  }
  return actions;
}

}  // namespace

PipelineSchedule PipelineSchedule::make(ScheduleKind kind, int ranks, int microbatches, int chunks) {
  StageLayout layout(ranks, chunks);
  return from_compute_orders(schedule_name(kind), layout, microbatches, compute_orders(kind, layout, microbatches));
}

PipelineSchedule PipelineSchedule::from_compute_orders(std::string name, const StageLayout& layout, int microbatches,
                                                       const std::vector<std::vector<Action>>& compute_orders) {
  BRISK_CHECK(static_cast<int>(compute_orders.size()) == layout.ranks(),
              "pipeline schedule '{}': {} compute orders for {} ranks", name, compute_orders.size(), layout.ranks());
  PipelineSchedule schedule(std::move(name), layout, microbatches);
  std::vector<size_t> next(compute_orders.size(), 0);
  Done done;
  size_t remaining = 0;
  for (const auto& order : compute_orders) remaining += order.size();
  while (remaining > 0) {
    bool progressed = false;
    for (int rank = 0; rank < layout.ranks(); ++rank) {
      if (next[rank] == compute_orders[rank].size()) continue;
      const Action& a = compute_orders[rank][next[rank]];
      BRISK_CHECK(a.is_compute() && layout.rank_of(a.stage) == rank,
                  "pipeline schedule '{}': rank {} is given {}, which is not a computation of its stages",
                  schedule.name_, rank, describe(a));
      if (!missing_input(layout, done, a).empty()) continue;
      for (const Action& step : with_messages(layout, a)) schedule.global_order_.push_back({rank, step});
      done.insert({a.kind, a.microbatch, a.stage});
      ++next[rank];
      --remaining;
      progressed = true;
    }
    if (!progressed) {
      std::string waits;
      for (int rank = 0; rank < layout.ranks(); ++rank) {
        if (next[rank] == compute_orders[rank].size()) continue;
        const Action& a = compute_orders[rank][next[rank]];
        waits += fmt::format("; rank {} at {} needs {}", rank, describe(a), missing_input(layout, done, a));
      }
      BRISK_FAIL("pipeline schedule '{}' deadlocks: no rank can compute{}", schedule.name_, waits);
    }
  }
  return schedule;
}

std::vector<Action> PipelineSchedule::program(int rank) const {
  std::vector<Action> actions;
  for (const RankAction& ra : global_order_) {
    if (ra.rank == rank) actions.push_back(ra.action);
  }
  return actions;
}

void PipelineSchedule::set_program(int rank, const std::vector<Action>& program) {
  std::vector<RankAction> order;
  for (const RankAction& ra : global_order_) {
    if (ra.rank != rank) order.push_back(ra);
  }
  for (const Action& a : program) order.push_back({rank, a});
  global_order_ = std::move(order);
}

}  // namespace brisk::dist::pipeline
