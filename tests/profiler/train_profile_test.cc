// train --profile-steps on two ranks: each rank writes its trace of the profiled steps (ops,
// autograd, optimizer, data loading, collectives, DDP buckets), rank 0 logs the top ops and
// every epoch's all-reduce overlap; a malformed range is refused naming the flag.
#include <catch2/catch.hpp>

#include "tests/profiler/trace_reader.h"
#include "tests/scratch_files.h"
#include "tests/tools/train/launch_train.h"

namespace brisk::testing {
namespace {

using Catch::Matchers::Contains;

TEST_CASE("train --profile-steps: one trace per rank, the top ops and the overlap in the log", "[profiler][train]") {
  std::string dir = scratch_dir("train_profile");
  RunResult r = launch_train(2, {"--epochs", "1", "--metrics-csv", dir + "/m.csv", "--profile-steps", "2-3",
                                 "--profile-trace", dir + "/trace_rank{rank}.json"});
  INFO(output_of(r));
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Contains("top ops by self time:") && Contains("Self CPU time total:") && Contains("conv2d"));
  CHECK_THAT(r.out, Contains("% of it hidden behind backward (rank 0)"));
  for (int rank = 0; rank < 2; ++rank) {
    INFO("rank " << rank);
    std::vector<TraceEvent> trace = read_trace(dir + "/trace_rank" + std::to_string(rank) + ".json");
    std::vector<TraceEvent> steps;
    for (const TraceEvent& e : events_of(trace, "optimizer")) {
      if (e.name == "Optimizer.step#SGD.step") steps.push_back(e);
    }
    CHECK(steps.size() == 2);  // steps 2 and 3
    for (const char* cat : {"cpu_op", "autograd", "data_loading", "collective", "ddp"}) {
      INFO(cat);
      CHECK_FALSE(events_of(trace, cat).empty());
    }
  }
}

TEST_CASE("train --profile-steps: a malformed range is refused", "[profiler][train]") {
  RunResult r = launch_train(1, {"--epochs", "1", "--profile-steps", "5-2"});
  CHECK(r.status != 0);
  CHECK_THAT(r.out, Contains("--profile-steps \"5-2\": the first step 5 is after the last 2"));
}

}  // namespace
}  // namespace brisk::testing
