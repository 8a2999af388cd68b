// The GPT on (dp, tp, pp) layouts across processes started by the launcher, over Gloo: (2, 2, 2)
// on 8 processes (1F1B, interleaved, ZeRO-1 on dp) and (1, 2, 2), (2, 1, 2) on 4, each equal to
// one process on the global batch within 1e-12 (parallel_gpt_worker.cc). Tiny sizes; the
// timeout is generous for a loaded machine.
#include <catch2/catch.hpp>

#include <chrono>

#include "tests/distributed/testing/launch_workers.h"

namespace {

using namespace brisk::testing;

constexpr char kWorker[] = "tests/models/parallel/parallel_gpt_worker";

void check_world(int world, const std::vector<std::string>& layouts) {
  RunResult r = launch_workers(kWorker, world, {"all"}, std::chrono::seconds(600));
  INFO(output_of(r));
  CHECK(r.status == 0);
  CHECK(missing_ok_lines(r, world, layouts).empty());
}

TEST_CASE("The GPT on (2, 2, 2) across 8 processes trains as one process", "[parallel_gpt]") {
  check_world(8, {"dp2_tp2_pp2_1f1b", "dp2_tp2_pp2_interleaved", "dp2_tp2_pp2_zero1"});
}

TEST_CASE("The GPT on (1, 2, 2) and (2, 1, 2) across 4 processes trains as one process", "[parallel_gpt]") {
  check_world(4, {"dp1_tp2_pp2_gpipe", "dp2_tp1_pp2_1f1b"});
}

}  // namespace
