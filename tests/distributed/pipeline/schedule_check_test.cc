// The schedules' global orders pass the checker, whose cost model gives the textbook bubble
// fractions, activation peaks and message counts; broken orders are rejected with the ranks and
// actions named.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "distributed/pipeline/schedule_check.h"

namespace {

using namespace brisk::dist::pipeline;
using Catch::Matchers::Contains;

std::vector<Action> computations(const std::vector<Action>& program) {
  std::vector<Action> compute;
  for (const Action& a : program) {
    if (a.is_compute()) compute.push_back(a);
  }
  return compute;
}

TEST_CASE("GPipe and 1F1B: the bubble is (p-1)/m at every size", "[pipeline]") {
  for (ScheduleKind kind : {ScheduleKind::GPipe, ScheduleKind::OneFOneB}) {
    for (int p : {1, 2, 3, 4, 6}) {
      for (int m : {1, 2, 3, 4, 5, 8, 13}) {
        INFO(schedule_name(kind) << " p=" << p << " m=" << m);
        ScheduleReport report = check_schedule(PipelineSchedule::make(kind, p, m));
        CHECK(report.bubble_fraction == Approx(double(p - 1) / m).epsilon(1e-12));
        for (int r = 0; r < p; ++r) {
          CHECK(report.busy[r] == Approx(3.0 * m));
          // GPipe holds every microbatch; 1F1B at most the stages after this one.
          CHECK(report.peak_activations[r] == (kind == ScheduleKind::GPipe ? m : std::min(m, p - r)));
        }
        // One activation and one gradient per microbatch and boundary.
        CHECK(report.messages_per_step == 2 * m * (p - 1));
      }
    }
  }
}

TEST_CASE("Interleaved 1F1B: the bubble is (p-1)/(v*m) when m is a multiple of p", "[pipeline]") {
  for (int p : {2, 3, 4}) {
    for (int v : {1, 2, 3, 4}) {
      for (int m : {p, 2 * p, 3 * p}) {
        INFO("p=" << p << " v=" << v << " m=" << m);
        PipelineSchedule schedule = PipelineSchedule::make(ScheduleKind::Interleaved1F1B, p, m, v);
        ScheduleReport report = check_schedule(schedule);
        CHECK(report.bubble_fraction == Approx(double(p - 1) / (v * m)).epsilon(1e-12));
        CHECK(report.bubble_fraction == Approx(formula_bubble(schedule)).epsilon(1e-12));
        // Every stage boundary crosses ranks: p*v - 1 of them.
        CHECK(report.messages_per_step == 2 * m * (p * v - 1));
        // Megatron's warm-up: rank r holds its warm-up forwards plus the one in flight.
        for (int r = 0; r < p; ++r) {
          CHECK(report.peak_activations[r] == std::min(2 * (p - 1 - r) + (v - 1) * p + 1, m * v));
        }
      }
    }
  }
  CHECK_THROWS_WITH(PipelineSchedule::make(ScheduleKind::Interleaved1F1B, 4, 6, 2),
                    Contains("the microbatches (6) must be a multiple of the pipeline ranks (4)"));
}

TEST_CASE("Looped GPipe over v chunks: (p-1)/(v*m) once m >= p", "[pipeline]") {
  for (int p : {2, 3, 4}) {
    for (int v : {2, 3}) {
      for (int m : {p, p + 1, 2 * p + 1}) {
        INFO("p=" << p << " v=" << v << " m=" << m);
        ScheduleReport report = check_schedule(PipelineSchedule::make(ScheduleKind::GPipe, p, m, v));
        CHECK(report.bubble_fraction == Approx(double(p - 1) / (v * m)).epsilon(1e-12));
        CHECK(report.peak_activations == std::vector<int>(p, m * v));
      }
    }
  }
}

TEST_CASE("The cost model's backward/forward ratio leaves GPipe's and 1F1B's bubble at (p-1)/m", "[pipeline]") {
  for (double backward : {1.0, 2.0, 3.0}) {
    for (ScheduleKind kind : {ScheduleKind::GPipe, ScheduleKind::OneFOneB}) {
      ScheduleReport report = check_schedule(PipelineSchedule::make(kind, 4, 8), CostModel{1.0, backward});
      CHECK(report.bubble_fraction == Approx(3.0 / 8).epsilon(1e-12));
    }
  }
}

TEST_CASE("Every rank's program is the projection of one global order", "[pipeline]") {
  PipelineSchedule schedule = PipelineSchedule::make(ScheduleKind::Interleaved1F1B, 2, 4, 2);
  std::vector<Action> rank1;
  for (const RankAction& ra : schedule.global_order()) {
    if (ra.rank == 1) rank1.push_back(ra.action);
  }
  CHECK(rank1 == schedule.program(1));
  // Its computations are the schedule's, each receive just before the computation it feeds.
  StageLayout layout(2, 2);
  CHECK(computations(rank1) == compute_orders(ScheduleKind::Interleaved1F1B, layout, 4)[1]);
  CHECK(rank1.front() == Action{ActionKind::RecvActivation, 0, 1, 0});
  CHECK(rank1[1] == Action{ActionKind::Forward, 0, 1, -1});
  CHECK(rank1[2] == Action{ActionKind::SendActivation, 0, 1, 0});
  // The same inputs give the same order on every rank.
  const PipelineSchedule same = PipelineSchedule::make(ScheduleKind::Interleaved1F1B, 2, 4, 2);
  const std::vector<RankAction>& again = same.global_order();
  REQUIRE(again.size() == schedule.global_order().size());
  for (size_t i = 0; i < again.size(); ++i) {
    CHECK(again[i].rank == schedule.global_order()[i].rank);
    CHECK(again[i].action == schedule.global_order()[i].action);
  }
}

TEST_CASE("A swapped receive order is rejected, naming both ranks' actions", "[pipeline]") {
  PipelineSchedule schedule = PipelineSchedule::make(ScheduleKind::GPipe, 2, 3);
  std::vector<Action> program = schedule.program(1);
  // Rank 1 receives microbatch 1's activation before microbatch 0's.
  REQUIRE(program[0] == Action{ActionKind::RecvActivation, 0, 1, 0});
  REQUIRE(program[2] == Action{ActionKind::RecvActivation, 1, 1, 0});
  std::swap(program[0], program[2]);
  std::swap(program[1], program[3]);  // and computes it first
  schedule.set_program(1, program);
  CHECK_THROWS_WITH(check_schedule(schedule),
                    Contains("rank 1 action #0 (recv activation mb 1 stage 1 from rank 0) would receive rank 0 action "
                             "#1 (send activation mb 0 stage 0 to rank 1)"));
}

TEST_CASE("Receives that wait on each other are reported as a deadlock cycle", "[pipeline]") {
  PipelineSchedule schedule = PipelineSchedule::make(ScheduleKind::OneFOneB, 2, 2);
  // Rank 0 waits for microbatch 0's gradient before sending microbatch 0's activation.
  schedule.set_program(0, {
                              {ActionKind::Forward, 0, 0, -1},
                              {ActionKind::RecvGradient, 0, 0, 1},
                              {ActionKind::SendActivation, 0, 0, 1},
                              {ActionKind::Backward, 0, 0, -1},
                              {ActionKind::Forward, 1, 0, -1},
                              {ActionKind::SendActivation, 1, 0, 1},
                              {ActionKind::RecvGradient, 1, 0, 1},
                              {ActionKind::Backward, 1, 0, -1},
                          });
  CHECK_THROWS_WITH(check_schedule(schedule), Contains("deadlocks: rank 0 action #1 (recv gradient mb 0 stage 0 from "
                                                       "rank 1) waits for rank 1; rank 1 action #0 (recv activation mb "
                                                       "0 stage 1 from rank 0) waits for rank 0"));
}

TEST_CASE("Programs that miss, repeat or misorder actions are rejected", "[pipeline]") {
  PipelineSchedule schedule = PipelineSchedule::make(ScheduleKind::GPipe, 2, 2);
  std::vector<Action> program = schedule.program(0);

  SECTION("a missing backward") {
    program.pop_back();
    schedule.set_program(0, program);
    CHECK_THROWS_WITH(check_schedule(schedule), Contains("rank 0 never runs backward mb 1 stage 0"));
  }
  SECTION("a backward before its forward") {
    std::vector<Action> bad{{ActionKind::RecvGradient, 0, 0, 1}, {ActionKind::Backward, 0, 0, -1}};
    bad.insert(bad.end(), program.begin(), program.end());
    schedule.set_program(0, bad);
    CHECK_THROWS_WITH(check_schedule(schedule),
                      Contains("rank 0 action #1 (backward mb 0 stage 0) runs before rank 0's forward mb 0 stage 0"));
  }
  SECTION("a repeated forward") {
    program.insert(program.begin() + 1, program.front());
    schedule.set_program(0, program);
    CHECK_THROWS_WITH(check_schedule(schedule), Contains("rank 0 action #1 (forward mb 0 stage 0) repeats rank 0's "
                                                         "action #0"));
  }
  SECTION("a send to the wrong rank") {
    PipelineSchedule three = PipelineSchedule::make(ScheduleKind::GPipe, 3, 1);
    std::vector<Action> p0 = three.program(0);
    REQUIRE(p0[1].kind == ActionKind::SendActivation);
    p0[1].peer = 2;
    three.set_program(0, p0);
    CHECK_THROWS_WITH(check_schedule(three), Contains("rank 0 action #1 (send activation mb 0 stage 0 to rank 2) "
                                                      "names rank 2 but stage 1 is on rank 1"));
  }
  SECTION("a send nobody receives") {
    std::vector<Action> p1 = schedule.program(1);
    p1.erase(p1.begin());  // rank 1 no longer receives microbatch 0 but computes it
    schedule.set_program(1, p1);
    CHECK_THROWS_WITH(check_schedule(schedule), Contains("rank 1 action #0 (forward mb 0 stage 1) runs before rank 1's "
                                                         "recv activation mb 0 stage 1"));
  }
}

TEST_CASE("Computation orders that deadlock fail while the global order is built", "[pipeline]") {
  StageLayout layout(2, 1);
  // Rank 1 starts with microbatch 1, rank 0 runs a backward before forwarding microbatch 1.
  std::vector<std::vector<Action>> orders{
      {{ActionKind::Forward, 0, 0},
       {ActionKind::Backward, 0, 0},
       {ActionKind::Forward, 1, 0},
       {ActionKind::Backward, 1, 0}},
      {{ActionKind::Forward, 1, 1},
       {ActionKind::Backward, 1, 1},
       {ActionKind::Forward, 0, 1},
       {ActionKind::Backward, 0, 1}},
  };
  CHECK_THROWS_WITH(PipelineSchedule::from_compute_orders("mine", layout, 2, orders),
                    Contains("pipeline schedule 'mine' deadlocks: no rank can compute; rank 0 at backward mb 0 stage 0 "
                             "needs backward mb 0 stage 1; rank 1 at forward mb 1 stage 1 needs forward mb 1 stage 0"));
}

TEST_CASE("Schedule names parse back, unknown ones are named", "[pipeline]") {
  for (ScheduleKind kind :
       {ScheduleKind::GPipe, ScheduleKind::OneFOneB, ScheduleKind::Interleaved1F1B, ScheduleKind::ZeroBubbleH1}) {
    CHECK(parse_schedule(schedule_name(kind)) == kind);
  }
  CHECK(parse_schedule("zb-h1") == ScheduleKind::ZeroBubbleH1);
  CHECK_THROWS_WITH(parse_schedule("zb"),
                    Contains("unknown pipeline schedule 'zb' (known: gpipe, 1f1b, interleaved, zb-h1)"));
  CHECK_THROWS_WITH(PipelineSchedule::make(ScheduleKind::ZeroBubbleH1, 2, 4, 2),
                    Contains("zb-h1 schedule: runs one chunk per rank, got 2"));
  CHECK_THROWS_WITH(PipelineSchedule::make(ScheduleKind::OneFOneB, 2, 4, 2), Contains("1f1b schedule: runs one chunk"));
}

std::string names(const std::vector<Action>& actions) {
  std::string text;
  for (const Action& a : actions) {
    const char* kind = a.kind == ActionKind::Forward ? "F" : a.kind == ActionKind::BackwardInput ? "I" : "W";
    text += (text.empty() ? "" : " ") + std::string(kind) + std::to_string(a.microbatch);
  }
  return text;
}

TEST_CASE("ZB-H1: 1F1B's order with input backwards, rank r's weight backwards r microbatches late", "[pipeline]") {
  const StageLayout layout(4, 1);
  const auto orders = compute_orders(ScheduleKind::ZeroBubbleH1, layout, 8);
  CHECK(names(orders[0]) == "F0 F1 F2 F3 I0 W0 F4 I1 W1 F5 I2 W2 F6 I3 W3 F7 I4 W4 I5 W5 I6 W6 I7 W7");
  CHECK(names(orders[3]) == "F0 I0 F1 I1 F2 I2 F3 I3 W0 F4 I4 W1 F5 I5 W2 F6 I6 W3 F7 I7 W4 W5 W6 W7");
  for (int p : {1, 2, 3, 4}) {
    for (int m : {1, 2, 3, 5, 8}) {
      const auto zb = compute_orders(ScheduleKind::ZeroBubbleH1, StageLayout(p, 1), m);
      const auto one_f_one_b = compute_orders(ScheduleKind::OneFOneB, StageLayout(p, 1), m);
      for (int r = 0; r < p; ++r) {
        // Without the weight backwards, and input backwards read as whole ones, it is 1F1B.
        std::vector<Action> rest;
        for (Action a : zb[r]) {
          if (a.kind == ActionKind::BackwardWeight) continue;
          if (a.kind == ActionKind::BackwardInput) a.kind = ActionKind::Backward;
          rest.push_back(a);
        }
        CHECK(rest == one_f_one_b[r]);
      }
    }
  }
}

TEST_CASE("ZB-H1: the bubble formula on the cost model, a third of 1F1B's, 1F1B's activation peak", "[pipeline]") {
  for (int p : {1, 2, 3, 4, 6}) {
    for (int m : {1, 2, 3, 4, 5, 8, 13}) {
      INFO("p=" << p << " m=" << m);
      PipelineSchedule schedule = PipelineSchedule::make(ScheduleKind::ZeroBubbleH1, p, m);
      ScheduleReport report = check_schedule(schedule);
      // F = I = W = 1: ((p-1)*2 - min(m-1, p-1)) / 3m.
      const double formula = (2.0 * (p - 1) - std::min(m - 1, p - 1)) / (3.0 * m);
      CHECK(report.bubble_fraction == Approx(formula).epsilon(1e-12).margin(1e-12));
      CHECK(formula_bubble(schedule) == Approx(formula).epsilon(1e-12).margin(1e-12));
      if (m >= p) CHECK(report.bubble_fraction == Approx(double(p - 1) / (3 * m)).epsilon(1e-12).margin(1e-12));
      const ScheduleReport one_f_one_b = check_schedule(PipelineSchedule::make(ScheduleKind::OneFOneB, p, m));
      CHECK(report.bubble_fraction <= one_f_one_b.bubble_fraction + 1e-12);
      // Every rank holds up to min(p, m) microbatches until their weight backward: 1F1B's peak.
      CHECK(report.peak_activations == std::vector<int>(p, std::min(p, m)));
      CHECK(*std::max_element(report.peak_activations.begin(), report.peak_activations.end()) ==
            *std::max_element(one_f_one_b.peak_activations.begin(), one_f_one_b.peak_activations.end()));
      for (int r = 0; r < p; ++r) CHECK(report.busy[r] == Approx(3.0 * m));
      CHECK(report.messages_per_step == 2 * m * (p - 1));
    }
  }
}

TEST_CASE("ZB-H1: the formula holds for other costs while the weight backward costs at most the forward",
          "[pipeline]") {
  for (CostModel costs : {CostModel{1.0, 2.0, 1.0}, CostModel{1.0, 2.0, 0.5}, CostModel{2.0, 3.0, 1.0},
                          CostModel{1.0, 1.5, 0.5}, CostModel{1.0, 3.0, 1.0}}) {
    for (int p : {2, 3, 4}) {
      for (int m : {1, 2, 4, 5, 8}) {
        INFO("forward " << costs.forward << " backward " << costs.backward << " weight " << costs.weight_backward
                        << " p=" << p << " m=" << m);
        PipelineSchedule schedule = PipelineSchedule::make(ScheduleKind::ZeroBubbleH1, p, m);
        CHECK(check_schedule(schedule, costs).bubble_fraction ==
              Approx(formula_bubble(schedule, costs)).epsilon(1e-12).margin(1e-12));
      }
    }
  }
}

TEST_CASE("Split backwards out of order are rejected", "[pipeline]") {
  PipelineSchedule schedule = PipelineSchedule::make(ScheduleKind::ZeroBubbleH1, 2, 2);
  std::vector<Action> program = schedule.program(1);
  SECTION("a weight backward before its input backward") {
    auto w = std::find(program.begin(), program.end(), Action{ActionKind::BackwardWeight, 0, 1, -1});
    auto i = std::find(program.begin(), program.end(), Action{ActionKind::BackwardInput, 0, 1, -1});
    REQUIRE((w != program.end() && i != program.end()));
    std::iter_swap(w, i);
    schedule.set_program(1, program);
    CHECK_THROWS_WITH(check_schedule(schedule), Contains("(backward weight mb 0 stage 1) runs before rank 1's "
                                                         "backward input mb 0 stage 1"));
  }
  SECTION("a missing weight backward") {
    program.erase(std::find(program.begin(), program.end(), Action{ActionKind::BackwardWeight, 1, 1, -1}));
    schedule.set_program(1, program);
    CHECK_THROWS_WITH(check_schedule(schedule), Contains("rank 1 never runs backward weight mb 1 stage 1"));
  }
  SECTION("a whole backward beside a split one") {
    program.push_back({ActionKind::Backward, 1, 1, -1});
    schedule.set_program(1, program);
    CHECK_THROWS_WITH(check_schedule(schedule), Contains("(backward mb 1 stage 1) is not an action of rank 1"));
  }
}

}  // namespace
