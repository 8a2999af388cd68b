// Pipelines on in-process thread ranks equal one process on the global batch (float64, within
// 1e-12): the loss and every parameter's gradient, for GPipe, 1F1B, interleaved 1F1B and ZB-H1
// on 2-4 ranks, 1-8 microbatches with uneven splits and a batch size that changes every step, then
// SGD steps; a skip connection passing two tensors between stages; every action a profiler
// event, once, in the order run; each stream's next receive posted ahead, within the step.
#include <catch2/catch.hpp>

#include <algorithm>

#include "distributed/pipeline/pipeline_stage.h"
#include "distributed/pipeline/pipeline_timeline.h"
#include "distributed/pipeline/tensor_message.h"
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

// A thread rank's group that logs, in call order, the first send and the first receive of each
// message (its header: kHeaderCapacity int64 values), "send tag 0 to 2", "post tag 0 from 0",
// and keeps every receive's Work.
class RecordingGroup final : public dist::ProcessGroup {
 public:
  RecordingGroup(std::shared_ptr<ThreadWorld> world, int rank)
      : ProcessGroup(rank, world->size(), kCPU), inner_(std::move(world), rank) {}
  std::string backend_name() const override { return inner_.backend_name(); }
  std::shared_ptr<dist::Work> send(const Tensor& tensor, int dst, int tag) override {
    if (is_header(tensor)) log.push_back(fmt::format("send tag {} to {}", tag, dst));
    return inner_.send(tensor, dst, tag);
  }
  std::shared_ptr<dist::Work> recv(Tensor& tensor, int src, int tag) override {
    if (is_header(tensor)) log.push_back(fmt::format("post tag {} from {}", tag, src));
    receives.push_back(inner_.recv(tensor, src, tag));
    return receives.back();
  }

  std::vector<std::string> log;
  std::vector<std::shared_ptr<dist::Work>> receives;

 private:
  static bool is_header(const Tensor& t) { return t.dtype() == kInt64 && t.numel() == kHeaderCapacity; }
  ThreadProcessGroup inner_;
};

// How many entries equal to `entry` come before the k-th (from 0) one equal to `before`.
int count_before(const std::vector<std::string>& log, const std::string& entry, const std::string& before, int k) {
  int seen = 0, count = 0;
  for (const std::string& e : log) {
    if (e == before && seen++ == k) return count;
    if (e == entry) ++count;
  }
  FAIL("fewer than " << k + 1 << " '" << before << "'");
  return -1;
}

TEST_CASE("Each stream's next receive is posted ahead, within the step, as shapes change every step", "[pipeline]") {
  // 1F1B on 3 ranks: rank 1 receives activations from rank 0 (tag 0) and gradients from rank 2
  // (tag 1); without posting ahead, the receive of microbatch j + 1's activations would come
  // after the send of microbatch j's (recv, forward, send, recv, ...). Three steps of 2m+1, 3m
  // and m+1 rows: the first message of every step has new shapes.
  const int ranks = 3, m = 4, steps = 3;
  auto world = std::make_shared<ThreadWorld>(ranks);
  std::vector<std::shared_ptr<RecordingGroup>> groups(ranks);
  run_ranks(ranks, [&](int rank) {
    groups[rank] = std::make_shared<RecordingGroup>(world, rank);
    const std::string failure = train_and_compare(groups[rank], PipelineCase{ScheduleKind::OneFOneB, m, 1, {}});
    if (!failure.empty()) brisk::testing::record_thread_failure(failure);
  });
  const std::vector<std::string>& log = groups[1]->log;
  for (int k = 0; k < steps * m; ++k) {
    const int step = k / m, j = k % m;
    INFO("rank 1's send of step " << step << " microbatch " << j << ": " << fmt::format("{}", fmt::join(log, ", ")));
    // Microbatch j + 1's activations posted before microbatch j's are sent on...
    CHECK(count_before(log, "post tag 0 from 0", "send tag 0 to 2", k) == step * m + std::min(j + 2, m));
    // ... and never the next step's.
    CHECK(count_before(log, "post tag 0 from 0", "send tag 1 to 0", k) <= (step + 1) * m);
    CHECK(count_before(log, "post tag 1 from 2", "send tag 1 to 0", k) <= (step + 1) * m);
  }
  // The first gradient's receive posted when the step starts, before the first send.
  CHECK(count_before(log, "post tag 1 from 2", "send tag 0 to 2", 0) == 1);
  for (const auto& group : groups) {
    CHECK(std::count(group->log.begin(), group->log.end(), "post tag 0 from " + std::to_string(group->rank() - 1)) ==
          (group->rank() > 0 ? steps * m : 0));
    for (const auto& work : group->receives) CHECK(work->is_completed());  // nothing left posted
  }
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
