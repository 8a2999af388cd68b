// One rank of a pipeline across processes over Gloo, started by the launcher:
//
//   launch --nproc-per-node 3 tests/distributed/pipeline/pipeline_worker [--device cpu|sim|cuda] all
//
// Each scenario trains the LayerChain pipelined over the world's group and, on every rank, as
// one process on the whole batch (pipeline_training.h), and prints "<scenario> ok" when they
// agree, "<scenario> FAILED <what>" otherwise; the exit status is 0 only when all passed.
//   gpipe        GPipe, 5 microbatches (uneven)
//   1f1b         1F1B, 4 microbatches
//   interleaved  interleaved 1F1B, 2 chunks per rank, 2*world microbatches
//   skip         1F1B with a skip connection: two tensors per message
//   zb-h1        ZB-H1 (split backward), 5 microbatches (uneven)
// Every scenario runs three steps whose batch sizes differ (shape headers). The pipeline runs on
// the group's device (worker_group.h), the one-process reference on the CPU.
#include <cstdio>

#include "distributed/distributed.h"
#include "tests/distributed/pipeline/pipeline_training.h"
#include "tests/distributed/testing/worker_group.h"

namespace {

using namespace brisk;
using namespace brisk::dist::pipeline;
using namespace brisk::dist::pipeline::testing;

int run_all(const std::string& what, const std::shared_ptr<dist::ProcessGroup>& group) {
  std::vector<std::string> names{what};
  if (what == "all") names = {"gpipe", "1f1b", "interleaved", "skip", "zb-h1"};
  ChainOptions skip;
  skip.skip = true;
  int failures = 0;
  for (const std::string& name : names) {
    std::string failure;
    if (name == "gpipe") failure = train_and_compare(group, {ScheduleKind::GPipe, 5, 1, ChainOptions{}});
    else if (name == "1f1b") failure = train_and_compare(group, {ScheduleKind::OneFOneB, 4, 1, ChainOptions{}});
    else if (name == "interleaved")
      failure = train_and_compare(group, {ScheduleKind::Interleaved1F1B, 2 * group->size(), 2, ChainOptions{}});
    else if (name == "skip") failure = train_and_compare(group, {ScheduleKind::OneFOneB, 4, 1, skip});
    else if (name == "zb-h1") failure = train_and_compare(group, {ScheduleKind::ZeroBubbleH1, 5, 1, ChainOptions{}});
    else failure = "unknown scenario";
    std::printf("%s %s %s\n", name.c_str(), failure.empty() ? "ok" : "FAILED", failure.c_str());
    std::fflush(stdout);
    failures += failure.empty() ? 0 : 1;
  }
  dist::destroy_process_group();
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return brisk::dist::testing::worker_main(argc, argv, "all|gpipe|1f1b|interleaved|skip|zb-h1", run_all);
}
