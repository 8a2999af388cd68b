// BRISK_TRAIN_FAULT's parsing: which rank and round it arms, and malformed specs refused by
// name. (Its faults themselves are exercised by restart_test, in real jobs.)
#include "tests/tools/train/fault_injection.h"

#include <catch2/catch.hpp>

#include "tensor/error.h"

using namespace brisk;
using namespace brisk::train;
using Catch::Matchers::Contains;

TEST_CASE("fault injection: armed on its rank in its round only; nothing without a spec") {
  CHECK_FALSE(FaultInjector("", 0, 0).armed());
  CHECK(FaultInjector("rank=1,step=7,at=backward", 1, 0).armed());
  CHECK_FALSE(FaultInjector("rank=1,step=7,at=backward", 0, 0).armed());
  CHECK_FALSE(FaultInjector("rank=1,step=7,at=backward", 1, 1).armed());
  CHECK(FaultInjector("rank=1,step=7,round=1", 1, 1).armed());
  CHECK(FaultInjector("step=3", 0, 0).armed());  // rank 0, between steps, round 0 by default
  CHECK(FaultInjector("step=3", 0, 0).describe() == "rank 0 dies after step 3");
  CHECK(FaultInjector("rank=1,step=7,at=backward", 1, 0).describe() == "rank 1 dies in the backward of step 8");
  CHECK(FaultInjector("step=6,at=checkpoint", 0, 0).describe() ==
        "rank 0 dies writing the first checkpoint of a step >= 6");
  CHECK(FaultInjector("rank=1,step=4,at=preempt_self,signal=USR1", 1, 0).describe() ==
        "rank 1 gets SIGUSR1 after step 4");
  CHECK(FaultInjector("step=2,at=preempt_job", 0, 0).describe() ==
        "rank 0 has Slurm send SIGTERM to the job after step 2");
}

TEST_CASE("fault injection: a malformed BRISK_TRAIN_FAULT is refused, naming the entry") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"rank=1", "BRISK_TRAIN_FAULT: step=S is missing in 'rank=1'"},
      {"step=x", "BRISK_TRAIN_FAULT: step=x is not an integer >= 0"},
      {"step=3,rank=-1", "BRISK_TRAIN_FAULT: rank=-1 is not an integer >= 0"},
      {"step=3,at=forward",
       "BRISK_TRAIN_FAULT: at=forward is not step, backward, checkpoint, preempt_self, preempt_starter or preempt_job"},
      {"step=3,at=preempt_self,signal=KILL", "BRISK_TRAIN_FAULT: signal=KILL is not TERM or USR1"},
      {"step=3,when=now", "BRISK_TRAIN_FAULT: unknown key 'when' (rank, step, at, round, signal)"},
      {"step=3,kill", "BRISK_TRAIN_FAULT: 'kill' is not key=value"},
      {"rank=1,step=3,at=checkpoint", "at=checkpoint needs rank=0 (only rank 0 writes checkpoints), got rank=1"},
  };
  for (const auto& [spec, message] : cases) {
    INFO(spec);
    CHECK_THROWS_WITH(FaultInjector(spec, 0, 0), Contains(message));
  }
}
