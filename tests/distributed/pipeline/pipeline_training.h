#pragma once
// One rank's half of the pipeline equivalence tests, shared by the thread-rank test and the
// multiprocess worker: trains the LayerChain pipelined over `group` (on its device) and, on the
// same rank, as one process on the whole batch (on the CPU), and compares them.
//
//   std::string failure = train_and_compare(group, {ScheduleKind::OneFOneB, /*microbatches=*/4});
//   THREAD_CHECK(failure.empty());
#include <memory>
#include <string>

#include "distributed/pipeline/schedules.h"
#include "distributed/process_group.h"
#include "tests/distributed/pipeline/layer_chain.h"

namespace brisk::dist::pipeline::testing {

struct PipelineCase {
  ScheduleKind kind = ScheduleKind::OneFOneB;
  int microbatches = 1;
  int chunks = 1;
  ChainOptions chain;  // its layers are raised to stages + 1 when fewer
};

// Three steps of SGD (momentum) on batches of 2m+1, 3m and m+1 rows (uneven microbatches,
// shapes changing each step). After each backward, the loss (on the last stage's rank) and the
// gradient of every parameter of this rank's stages must equal the one-process run's within
// 1e-12; the optimizer steps then keep them equal. Returns "" or what differed.
std::string train_and_compare(const std::shared_ptr<ProcessGroup>& group, const PipelineCase& c);

}  // namespace brisk::dist::pipeline::testing
