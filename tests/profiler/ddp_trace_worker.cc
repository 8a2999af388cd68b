// One rank of a profiled DDP job, for ddp_trace_test: an MLP of wide layers trained with DDP
// over Gloo with small buckets (one per layer, so that the late layers' buckets are reduced
// while backward still computes the early ones); after two warm-up steps the profiler records
// three steps and the rank writes its trace to argv[1] ("{rank}" replaced) and prints each
// step's comm_overlap().
#include <cstdio>
#include <string>

#include "autograd/ops.h"
#include "distributed/ddp/distributed_data_parallel.h"
#include "distributed/distributed.h"
#include "models/mlp.h"
#include "nn/functional.h"
#include "optim/sgd.h"
#include "profiler/profiler.h"
#include "tensor/native/ops.h"

using namespace brisk;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: ddp_trace_worker TRACE_PATTERN\n");
    return 2;
  }
  dist::init_process_group("gloo");
  const int rank = dist::get_rank();
  manual_seed(0);
  models::MLP mlp(models::MLPOptions(512, 10).hidden({512, 512, 512, 512}));
  dist::DistributedDataParallel ddp(mlp, dist::default_group(),
                                    dist::DistributedDataParallelOptions().bucket_cap_mb(0.5).first_bucket_cap_mb(0.5));
  optim::SGD opt(ddp->parameters(), optim::SGDOptions(0.01));
  Generator gen(static_cast<uint64_t>(rank) + 1);
  Tensor x = randn({128, 512}, {}, &gen);
  Tensor y = native::argmax(randn({128, 10}, {}, &gen), 1, false);

  profiler::Profiler prof;
  for (int step = 0; step < 5; ++step) {
    if (step == 2) prof.start();
    opt.zero_grad();
    nn::functional::cross_entropy(ddp->forward(x), y).backward();
    opt.step();
    dist::CommOverlap overlap = ddp->comm_overlap();
    std::printf("step %d: communication %.3f ms, hidden %.3f ms, exposed %.3f ms\n", step, overlap.communication_ms,
                overlap.hidden_ms, overlap.exposed_ms);
  }
  prof.stop();
  std::string path = argv[1];
  path.replace(path.find("{rank}"), 6, std::to_string(rank));
  prof.export_chrome_trace(path, "rank " + std::to_string(rank));
  std::printf("buckets %zu\n", ddp->reducer().bucket_indices().size());
  dist::destroy_process_group();
  return 0;
}
