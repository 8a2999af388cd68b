// Pipelines on in-process thread ranks equal one process on the global batch (float64, within
// 1e-12): the loss and every parameter's gradient, for GPipe, 1F1B, interleaved 1F1B and ZB-H1
// on 2-4 ranks, 1-8 microbatches with uneven splits and a batch size that changes every step, then
// SGD steps; a skip connection passing two tensors between stages; every action a profiler
// event, once, in the order run.
#include <catch2/catch.hpp>

#include "distributed/pipeline/pipeline_timeline.h"
#include "profiler/profiler.h"
#include "tests/distributed/ddp/thread_process_group.h"
#include "tests/distributed/pipeline/layer_chain.h"
#include "tests/distributed/pipeline/pipeline_training.h"

namespace {

using namespace brisk;
using namespace brisk::dist::pipeline;
using namespace brisk::dist::pipeline::testing;
using brisk::dist::testing::run_ranks;
using brisk::dist::testing::ThreadProcessGroup;
using brisk::dist::testing::ThreadWorld;
using Catch::Matchers::Contains;

// The pipeline on `ranks` threads against one process (pipeline_training.h).
void check_equivalence(ScheduleKind kind, int ranks, int microbatches, int chunks, ChainOptions chain) {
  auto world = std::make_shared<ThreadWorld>(ranks);
  run_ranks(ranks, [&](int rank) {
    auto group = std::make_shared<ThreadProcessGroup>(world, rank);
    const std::string failure = train_and_compare(group, PipelineCase{kind, microbatches, chunks, chain});
    if (!failure.empty()) brisk::testing::record_thread_failure(failure);
  });
}

TEST_CASE("GPipe and 1F1B on 2-4 ranks equal one process on the global batch", "[pipeline]") {
  for (ScheduleKind kind : {ScheduleKind::GPipe, ScheduleKind::OneFOneB}) {
    for (int ranks : {2, 3, 4}) {
      for (int m : {1, 2, 4, 5}) check_equivalence(kind, ranks, m, 1, ChainOptions{});
    }
  }
}

TEST_CASE("ZB-H1 (split backward) on 2-4 ranks equals one process on the global batch", "[pipeline]") {
  for (int ranks : {2, 3, 4}) {
    for (int m : {1, 2, 4, 5}) check_equivalence(ScheduleKind::ZeroBubbleH1, ranks, m, 1, ChainOptions{});
  }
  ChainOptions skip;
  skip.skip = true;
  check_equivalence(ScheduleKind::ZeroBubbleH1, 3, 4, 1, skip);
  check_equivalence(ScheduleKind::ZeroBubbleH1, 1, 3, 1, ChainOptions{});
}

TEST_CASE("Interleaved 1F1B with 2 chunks per rank equals one process", "[pipeline]") {
  for (int ranks : {2, 3, 4}) {
    for (int m : {ranks, 2 * ranks}) check_equivalence(ScheduleKind::Interleaved1F1B, ranks, m, 2, ChainOptions{});
  }
  check_equivalence(ScheduleKind::GPipe, 2, 3, 2, ChainOptions{});  // looped GPipe
}

TEST_CASE("A skip connection: two tensors cross every stage boundary", "[pipeline]") {
  ChainOptions skip;
  skip.skip = true;
  check_equivalence(ScheduleKind::OneFOneB, 3, 4, 1, skip);
  check_equivalence(ScheduleKind::Interleaved1F1B, 2, 2, 2, skip);
}

TEST_CASE("One rank runs every stage locally", "[pipeline]") {
  check_equivalence(ScheduleKind::GPipe, 1, 3, 1, ChainOptions{});
  check_equivalence(ScheduleKind::Interleaved1F1B, 1, 2, 3, ChainOptions{});
}

TEST_CASE("Every action is a profiler event of its rank, once, in the order run", "[pipeline]") {
  const int ranks = 3;
  const ScheduleKind kind = GENERATE(ScheduleKind::OneFOneB, ScheduleKind::ZeroBubbleH1);
  PipelineSchedule schedule = PipelineSchedule::make(kind, ranks, 4);
  ChainOptions options;
  auto world = std::make_shared<ThreadWorld>(ranks);
  profiler::Profiler prof;
  prof.start();
  run_ranks(ranks, [&](int rank) {
    LayerChain model(options);
    PipelineStage stage(std::make_shared<ThreadProcessGroup>(world, rank), model.chunks(schedule.layout(), rank),
                        schedule, chain_loss);
    auto [x, y] = chain_batch(options, 9, 7);
    stage.step({x}, {y});
  });
  prof.stop();
  std::map<int, std::vector<std::string>> recorded;
  for (const profiler::Event& event : prof.events()) {  // sorted by start
    if (is_pipeline_event(event)) recorded[pipeline_event_rank(event)].push_back(event.name);
  }
  for (int rank = 0; rank < ranks; ++rank) {
    std::vector<std::string> expected;
    for (const Action& a : schedule.program(rank)) expected.push_back("pipeline " + describe(a));
    CHECK(recorded[rank] == expected);
  }
  MeasuredBubble measured = measure_bubble(prof.events());
  CHECK(measured.busy_ns.size() == ranks);
  for (const auto& [rank, busy] : measured.busy_ns) CHECK((busy > 0 && busy <= measured.step_ns));
}

TEST_CASE("PipelineStage names a group, chunk count or batch that does not fit", "[pipeline]") {
  ChainOptions options;
  LayerChain model(options);
  auto world = std::make_shared<ThreadWorld>(2);
  auto group = std::make_shared<ThreadProcessGroup>(world, 0);
  PipelineSchedule three = PipelineSchedule::make(ScheduleKind::GPipe, 3, 2);
  CHECK_THROWS_WITH(PipelineStage(group, model.chunks(three.layout(), 0), three, chain_loss),
                    Contains("schedule 'gpipe' has 3 ranks but the process group has 2"));
  PipelineSchedule interleaved = PipelineSchedule::make(ScheduleKind::Interleaved1F1B, 2, 2, 2);
  CHECK_THROWS_WITH(PipelineStage(group, model.chunks(StageLayout(2, 1), 0), interleaved, chain_loss),
                    Contains("rank 0 got 1 chunks but schedule 'interleaved' places 2 per rank"));
  PipelineSchedule two = PipelineSchedule::make(ScheduleKind::GPipe, 2, 4);
  PipelineStage stage(group, model.chunks(two.layout(), 0), two, chain_loss);
  CHECK_THROWS_WITH(stage.step({}, {}), Contains("rank 0 holds the first stage but got no inputs"));
  auto [x, y] = chain_batch(options, 3, 1);
  CHECK_THROWS_WITH(stage.step({x}, {}), Contains("3 rows cannot make 4 microbatches"));
}

}  // namespace
