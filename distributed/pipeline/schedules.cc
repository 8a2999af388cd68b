#include "distributed/pipeline/schedules.h"

#include <algorithm>

#include "tensor/error.h"

namespace brisk::dist::pipeline {

namespace {

Action forward(int mb, int stage) { return Action{ActionKind::Forward, mb, stage, -1}; }
Action backward(int mb, int stage) { return Action{ActionKind::Backward, mb, stage, -1}; }
Action backward_input(int mb, int stage) { return Action{ActionKind::BackwardInput, mb, stage, -1}; }
Action backward_weight(int mb, int stage) { return Action{ActionKind::BackwardWeight, mb, stage, -1}; }

std::vector<Action> gpipe(const StageLayout& layout, int rank, int m) {
  std::vector<Action> order;
  for (int c = 0; c < layout.chunks(); ++c) {
    for (int mb = 0; mb < m; ++mb) order.push_back(forward(mb, layout.stage_of(rank, c)));
  }
  for (int c = layout.chunks() - 1; c >= 0; --c) {
    for (int mb = 0; mb < m; ++mb) order.push_back(backward(mb, layout.stage_of(rank, c)));
  }
  return order;
}

// One forward and one backward sequence, interleaved after `warmup` forwards.
std::vector<Action> one_forward_one_backward(const std::vector<Action>& forwards, const std::vector<Action>& backwards,
                                             int warmup) {
  std::vector<Action> order(forwards.begin(), forwards.begin() + warmup);
  size_t f = warmup, b = 0;
  while (f < forwards.size()) {
    order.push_back(forwards[f++]);
    order.push_back(backwards[b++]);
  }
  order.insert(order.end(), backwards.begin() + static_cast<std::ptrdiff_t>(b), backwards.end());
  return order;
}

std::vector<Action> pipedream_flush(const StageLayout& layout, int rank, int m) {
  std::vector<Action> forwards, backwards;
  for (int mb = 0; mb < m; ++mb) {
    forwards.push_back(forward(mb, rank));
    backwards.push_back(backward(mb, rank));
  }
  return one_forward_one_backward(forwards, backwards, std::min(layout.ranks() - 1 - rank, m));
}

std::vector<Action> zero_bubble_h1(const StageLayout& layout, int rank, int m) {
  std::vector<Action> order;
  int weights = 0;  // microbatches whose weight pass is placed
  for (Action a : pipedream_flush(layout, rank, m)) {
    if (a.kind == ActionKind::Forward) {
      order.push_back(a);
      continue;
    }
    order.push_back(backward_input(a.microbatch, rank));
    if (a.microbatch >= rank) order.push_back(backward_weight(weights++, rank));
  }
  while (weights < m) order.push_back(backward_weight(weights++, rank));
  return order;
}

std::vector<Action> interleaved(const StageLayout& layout, int rank, int m) {
  const int p = layout.ranks(), v = layout.chunks();
  std::vector<Action> forwards, backwards;
  for (int round = 0; round * p < m; ++round) {
    for (int c = 0; c < v; ++c) {
      for (int mb = round * p; mb < (round + 1) * p; ++mb) {
        forwards.push_back(forward(mb, layout.stage_of(rank, c)));
        backwards.push_back(backward(mb, layout.stage_of(rank, v - 1 - c)));
      }
    }
  }
  const int warmup = std::min(2 * (p - 1 - rank) + (v - 1) * p, m * v);
  return one_forward_one_backward(forwards, backwards, warmup);
}

}  // namespace

std::string schedule_name(ScheduleKind kind) {
  switch (kind) {
    case ScheduleKind::GPipe: return "gpipe";
    case ScheduleKind::OneFOneB: return "1f1b";
    case ScheduleKind::Interleaved1F1B: return "interleaved";
    case ScheduleKind::ZeroBubbleH1: return "zb-h1";
  }
  return "unknown";
}

ScheduleKind parse_schedule(const std::string& name) {
  for (ScheduleKind kind :
       {ScheduleKind::GPipe, ScheduleKind::OneFOneB, ScheduleKind::Interleaved1F1B, ScheduleKind::ZeroBubbleH1}) {
    if (schedule_name(kind) == name) return kind;
  }
  BRISK_FAIL("unknown pipeline schedule '{}' (known: gpipe, 1f1b, interleaved, zb-h1)", name);
}

std::vector<std::vector<Action>> compute_orders(ScheduleKind kind, const StageLayout& layout, int microbatches) {
  const std::string name = schedule_name(kind);
  BRISK_CHECK(microbatches >= 1, "{} schedule: needs at least one microbatch, got {}", name, microbatches);
  BRISK_CHECK((kind != ScheduleKind::OneFOneB && kind != ScheduleKind::ZeroBubbleH1) || layout.chunks() == 1,
              "{} schedule: runs one chunk per rank, got {} (use interleaved)", name, layout.chunks());
  BRISK_CHECK(kind != ScheduleKind::Interleaved1F1B || microbatches % layout.ranks() == 0,
              "interleaved schedule: the microbatches ({}) must be a multiple of the pipeline ranks ({})", microbatches,
              layout.ranks());
  std::vector<std::vector<Action>> orders;
  for (int rank = 0; rank < layout.ranks(); ++rank) {
    switch (kind) {
      case ScheduleKind::GPipe: orders.push_back(gpipe(layout, rank, microbatches)); break;
      case ScheduleKind::OneFOneB: orders.push_back(pipedream_flush(layout, rank, microbatches)); break;
      case ScheduleKind::Interleaved1F1B: orders.push_back(interleaved(layout, rank, microbatches)); break;
      case ScheduleKind::ZeroBubbleH1: orders.push_back(zero_bubble_h1(layout, rank, microbatches)); break;
    }
  }
  return orders;
}

}  // namespace brisk::dist::pipeline
