// The issue's proof that DDP overlaps: two ranks (tests/profiler/ddp_trace_worker under the
// launcher) each write a trace of three DDP steps; in each, bucket all-reduces run on the
// process group's thread while the autograd engine still runs backward nodes on the main
// thread, the buckets appear as DDP events from launch to completion, and comm_overlap
// reports hidden time.
#include <catch2/catch.hpp>

#include <regex>

#include "tests/profiler/trace_reader.h"
#include "tests/scratch_files.h"
#include "tests/tools/launch/run_launcher.h"

namespace brisk::testing {
namespace {

TEST_CASE("profiler: a 2-rank DDP trace shows bucket all-reduces overlapping backward", "[profiler][distributed]") {
  std::string dir = scratch_dir("ddp_trace");
  RunOptions options;
  options.timeout = std::chrono::seconds(240);
  RunResult r = run_launcher(
      {"--nproc-per-node", "2", "tests/profiler/ddp_trace_worker", dir + "/trace_rank{rank}.json"}, options);
  INFO(output_of(r));
  REQUIRE(r.status == 0);
  std::smatch m;
  REQUIRE(std::regex_search(r.out, m, std::regex(R"(buckets (\d+))")));
  const size_t buckets = std::stoul(m[1]);
  REQUIRE(buckets >= 4);  // one per layer

  for (int rank = 0; rank < 2; ++rank) {
    INFO("rank " << rank);
    std::vector<TraceEvent> trace = read_trace(dir + "/trace_rank" + std::to_string(rank) + ".json");
    std::vector<TraceEvent> autograd = events_of(trace, "autograd");
    std::vector<TraceEvent> bucket_events = events_of(trace, "ddp");
    std::vector<TraceEvent> all_reduces;
    for (const TraceEvent& e : events_of(trace, "collective")) {
      if (e.name == "gloo:all_reduce") all_reduces.push_back(e);
    }
    REQUIRE_FALSE(autograd.empty());
    CHECK(bucket_events.size() == 3 * buckets);
    REQUIRE(all_reduces.size() >= 3 * buckets);
    CHECK(all_reduces[0].args.at("Collective name") == "all_reduce");
    CHECK(all_reduces[0].args.at("Group size") == "2");

    int overlapping = 0;
    for (const TraceEvent& reduce : all_reduces) {
      for (const TraceEvent& node : autograd) {
        if (reduce.tid != node.tid && reduce.overlaps(node)) {
          ++overlapping;
          break;
        }
      }
    }
    CHECK(overlapping > 0);
    int bucket_overlapping = 0;
    for (const TraceEvent& bucket : bucket_events) {
      for (const TraceEvent& node : autograd) bucket_overlapping += bucket.overlaps(node) ? 1 : 0;
    }
    CHECK(bucket_overlapping > 0);
  }
  // The metric agrees: some of the profiled steps' communication was hidden.
  std::regex hidden(R"(step [234]: communication [0-9.]+ ms, hidden ([0-9.]+) ms)");
  double hidden_ms = 0;
  for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), hidden); it != std::sregex_iterator(); ++it) {
    hidden_ms += std::stod((*it)[1]);
  }
  CHECK(hidden_ms > 0);
}

}  // namespace
}  // namespace brisk::testing
