#include "distributed/pipeline/schedule_check.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <tuple>

#include "tensor/error.h"

namespace brisk::dist::pipeline {

namespace {

using Key = std::tuple<ActionKind, int, int>;  // (kind, microbatch, stage)

std::string at(int rank, size_t index, const Action& a) {
  return fmt::format("rank {} action #{} ({})", rank, index, describe(a));
}

// The receive that matches a send, and the reverse.
Action counterpart(const Action& a, int rank) {
  switch (a.kind) {
    case ActionKind::SendActivation: return {ActionKind::RecvActivation, a.microbatch, a.stage + 1, rank};
    case ActionKind::RecvActivation: return {ActionKind::SendActivation, a.microbatch, a.stage - 1, rank};
    case ActionKind::SendGradient: return {ActionKind::RecvGradient, a.microbatch, a.stage - 1, rank};
    case ActionKind::RecvGradient: return {ActionKind::SendGradient, a.microbatch, a.stage + 1, rank};
    default: return a;
  }
}

// The (microbatch, stage) pairs whose backward a rank's program splits into BackwardInput and
// BackwardWeight; the others run a whole Backward.
using SplitBackwards = std::set<std::pair<int, int>>;

SplitBackwards split_backwards(const std::vector<Action>& program) {
  SplitBackwards split;
  for (const Action& a : program) {
    if (a.kind == ActionKind::BackwardInput) split.insert({a.microbatch, a.stage});
  }
  return split;
}

// The computation giving the gradient of the inputs of stage `s` for `mb`.
Key input_gradient(const SplitBackwards& split, int mb, int s) {
  return {split.count({mb, s}) ? ActionKind::BackwardInput : ActionKind::Backward, mb, s};
}

// What must precede `a` on its rank (a computation needs its input, a send its output); the
// alternatives are either a receive or the neighbouring stage's computation when local.
std::vector<Key> prerequisites(const StageLayout& layout, const SplitBackwards& split, const Action& a) {
  const int mb = a.microbatch, s = a.stage;
  const bool local_prev = !layout.is_first(s) && layout.rank_of(s - 1) == layout.rank_of(s);
  const bool local_next = !layout.is_last(s) && layout.rank_of(s + 1) == layout.rank_of(s);
  switch (a.kind) {
    case ActionKind::Forward:
      if (layout.is_first(s)) return {};
      return {local_prev ? Key{ActionKind::Forward, mb, s - 1} : Key{ActionKind::RecvActivation, mb, s}};
    case ActionKind::Backward:
    case ActionKind::BackwardInput: {
      std::vector<Key> keys{Key{ActionKind::Forward, mb, s}};
      if (!layout.is_last(s)) {
        keys.push_back(local_next ? input_gradient(split, mb, s + 1) : Key{ActionKind::RecvGradient, mb, s});
      }
      return keys;
    }
    case ActionKind::BackwardWeight: return {Key{ActionKind::BackwardInput, mb, s}};
    case ActionKind::SendActivation: return {Key{ActionKind::Forward, mb, s}};
    case ActionKind::SendGradient: return {input_gradient(split, mb, s)};
    default: return {};
  }
}

// The actions rank must run exactly once: its computations and the messages across ranks.
std::set<Key> required_actions(const StageLayout& layout, const SplitBackwards& split, int rank, int microbatches) {
  std::set<Key> keys;
  for (int c = 0; c < layout.chunks(); ++c) {
    const int s = layout.stage_of(rank, c);
    for (int mb = 0; mb < microbatches; ++mb) {
      keys.insert({ActionKind::Forward, mb, s});
      if (split.count({mb, s})) {
        keys.insert({ActionKind::BackwardInput, mb, s});
        keys.insert({ActionKind::BackwardWeight, mb, s});
      } else {
        keys.insert({ActionKind::Backward, mb, s});
      }
      if (!layout.is_first(s) && layout.rank_of(s - 1) != rank) {
        keys.insert({ActionKind::RecvActivation, mb, s});
        keys.insert({ActionKind::SendGradient, mb, s});
      }
      if (!layout.is_last(s) && layout.rank_of(s + 1) != rank) {
        keys.insert({ActionKind::SendActivation, mb, s});
        keys.insert({ActionKind::RecvGradient, mb, s});
      }
    }
  }
  return keys;
}

// Each rank's program on its own: the actions it must run, once each, after what they need.
void check_programs(const PipelineSchedule& schedule, const std::vector<std::vector<Action>>& programs) {
  const StageLayout& layout = schedule.layout();
  const std::string name = schedule.name();
  for (int rank = 0; rank < layout.ranks(); ++rank) {
    const auto& program = programs[rank];
    const SplitBackwards split = split_backwards(program);
    std::set<Key> required = required_actions(layout, split, rank, schedule.microbatches());
    std::map<Key, size_t> seen;  // action -> its index in the program
    for (size_t i = 0; i < program.size(); ++i) {
      const Action& a = program[i];
      const Key key{a.kind, a.microbatch, a.stage};
      BRISK_CHECK(required.count(key), "pipeline schedule '{}': {} is not an action of rank {}", name, at(rank, i, a),
                  rank);
      BRISK_CHECK(!seen.count(key), "pipeline schedule '{}': {} repeats rank {}'s action #{}", name, at(rank, i, a),
                  rank, seen[key]);
      if (a.is_send() || a.is_recv()) {
        const int peer = layout.rank_of(counterpart(a, rank).stage);
        BRISK_CHECK(a.peer == peer, "pipeline schedule '{}': {} names rank {} but stage {} is on rank {}", name,
                    at(rank, i, a), a.peer, counterpart(a, rank).stage, peer);
      }
      for (const Key& needed : prerequisites(layout, split, a)) {
        const Action before{std::get<0>(needed), std::get<1>(needed), std::get<2>(needed), -1};
        BRISK_CHECK(seen.count(needed), "pipeline schedule '{}': {} runs before rank {}'s {}", name, at(rank, i, a),
                    rank, describe(before));
      }
      seen[key] = i;
    }
    for (const Key& key : required) {
      const Action missing{std::get<0>(key), std::get<1>(key), std::get<2>(key), -1};
      BRISK_CHECK(seen.count(key), "pipeline schedule '{}': rank {} never runs {}", name, rank, describe(missing));
    }
  }
}

struct Message {
  Action send;
  size_t index;  // in the sender's program
  double sent_at;
};

struct Simulation {
  std::vector<double> clock, busy;
  std::vector<int> peak;
  int messages = 0;
};

// Runs the programs on the cost model: sends deposit their message, receives wait for it.
Simulation simulate(const PipelineSchedule& schedule, const std::vector<std::vector<Action>>& programs,
                    const CostModel& costs) {
  const StageLayout& layout = schedule.layout();
  const int ranks = layout.ranks();
  const std::string name = schedule.name();
  const double chunks = layout.chunks();
  const std::map<ActionKind, double> cost{
      {ActionKind::Forward, costs.forward / chunks},
      {ActionKind::Backward, costs.backward / chunks},
      {ActionKind::BackwardInput, (costs.backward - costs.weight_backward) / chunks},
      {ActionKind::BackwardWeight, costs.weight_backward / chunks},
  };
  std::map<std::tuple<int, int, int>, std::deque<Message>> channels;  // (src, dst, tag)
  Simulation sim{std::vector<double>(ranks, 0.0), std::vector<double>(ranks, 0.0), std::vector<int>(ranks, 0)};
  std::vector<int> live(ranks, 0);
  std::vector<size_t> pc(ranks, 0);
  auto finished = [&](int r) { return pc[r] == programs[r].size(); };
  bool progressed = true;
  while (progressed) {
    progressed = false;
    for (int r = 0; r < ranks; ++r) {
      while (!finished(r)) {
        const Action& a = programs[r][pc[r]];
        if (a.is_recv()) {
          auto& channel = channels[{a.peer, r, message_tag(a.kind)}];
          if (channel.empty()) break;
          const Message& m = channel.front();
          BRISK_CHECK(m.send == counterpart(a, r),
                      "pipeline schedule '{}': {} would receive {} (the receives from rank {} are not in the order of "
                      "its sends)",
                      name, at(r, pc[r], a), at(a.peer, m.index, m.send), a.peer);
          sim.clock[r] = std::max(sim.clock[r], m.sent_at);
          channel.pop_front();
        } else if (a.is_send()) {
          channels[{r, a.peer, message_tag(a.kind)}].push_back({a, pc[r], sim.clock[r]});
          ++sim.messages;
        } else {
          sim.clock[r] += cost.at(a.kind);
          sim.busy[r] += cost.at(a.kind);
          // A microbatch's activations live from its forward to its (weight) backward.
          if (a.kind == ActionKind::Forward) ++live[r];
          if (a.kind == ActionKind::Backward || a.kind == ActionKind::BackwardWeight) --live[r];
          sim.peak[r] = std::max(sim.peak[r], live[r]);
        }
        ++pc[r];
        progressed = true;
      }
    }
  }
  // Stuck: follow who waits for whom from the first blocked rank to a cycle or a finished rank.
  for (int r = 0; r < ranks; ++r) {
    if (finished(r)) continue;
    std::vector<int> chain;
    int cur = r;
    while (!finished(cur) && std::find(chain.begin(), chain.end(), cur) == chain.end()) {
      chain.push_back(cur);
      cur = programs[cur][pc[cur]].peer;
    }
    std::string waits;
    for (int w : chain) {
      const Action& a = programs[w][pc[w]];
      waits += fmt::format("{}{} waits for rank {}", waits.empty() ? "" : "; ", at(w, pc[w], a), a.peer);
    }
    if (finished(cur))
      BRISK_FAIL("pipeline schedule '{}' hangs: {}, which has finished without sending it", name, waits);
    BRISK_FAIL("pipeline schedule '{}' deadlocks: {}", name, waits);
  }
  for (const auto& [channel, messages] : channels) {
    if (messages.empty()) continue;
    const Message& m = messages.front();
    BRISK_FAIL("pipeline schedule '{}': {} is never received by rank {}", name,
               at(std::get<0>(channel), m.index, m.send), std::get<1>(channel));
  }
  return sim;
}

}  // namespace

ScheduleReport check_schedule(const PipelineSchedule& schedule, const CostModel& costs) {
  const StageLayout& layout = schedule.layout();
  BRISK_CHECK(
      costs.forward > 0 && costs.backward > 0 && costs.weight_backward >= 0 && costs.weight_backward <= costs.backward,
      "check_schedule: costs must be positive and the weight backward a part of the backward, got forward {}, "
      "backward {}, weight backward {}",
      costs.forward, costs.backward, costs.weight_backward);
  std::vector<std::vector<Action>> programs;
  for (int rank = 0; rank < layout.ranks(); ++rank) programs.push_back(schedule.program(rank));
  check_programs(schedule, programs);
  Simulation sim = simulate(schedule, programs, costs);

  ScheduleReport report;
  report.step_time = *std::max_element(sim.clock.begin(), sim.clock.end());
  report.busy = sim.busy;
  for (double busy : sim.busy) {
    report.bubble.push_back((report.step_time - busy) / busy);
    report.bubble_fraction = std::max(report.bubble_fraction, report.bubble.back());
  }
  report.peak_activations = sim.peak;
  report.messages_per_step = sim.messages;
  report.summary = fmt::format(
      "{} on {} ranks x {} chunks, {} microbatches: bubble {:.4f} (formula {:.4f}), peak activations per rank "
      "[{}], {} messages per step",
      schedule.name(), layout.ranks(), layout.chunks(), schedule.microbatches(), report.bubble_fraction,
      formula_bubble(schedule, costs), fmt::join(report.peak_activations, ", "), report.messages_per_step);
  return report;
}

double formula_bubble(const PipelineSchedule& schedule, const CostModel& costs) {
  const StageLayout& layout = schedule.layout();
  const int p = layout.ranks(), m = schedule.microbatches();
  if (schedule.name() == schedule_name(ScheduleKind::ZeroBubbleH1)) {
    const double f = costs.forward, w = costs.weight_backward, i = costs.backward - w;
    return ((p - 1) * (f + i) - std::min(m - 1, p - 1) * w) / (m * (f + i + w));
  }
  return static_cast<double>(p - 1) / (layout.chunks() * m);
}

}  // namespace brisk::dist::pipeline
