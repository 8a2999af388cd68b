// A multi-process job built against an installed Brisk (docs/install.md), started by the
// installed launcher:
//   PREFIX/bin/brisk-launch --nproc-per-node 2 build/sum_ranks
// Each rank all-reduces rank + 1; every rank checks the sum 1 + 2 + ... + world size. Started
// on its own, it is a world of one. CI runs it with 2 processes (tools/test_examples.sh).
#include <cstdio>

#include "brisk/brisk.h"

using namespace brisk;

int main() {
  dist::DistributedContext ctx = dist::init_distributed(dist::InitDistributedOptions().device("cpu"));
  Tensor value = full({1}, static_cast<double>(ctx.rank + 1));
  if (ctx.enabled) dist::all_reduce(value);
  const double sum = value.item<float>();
  const double expected = ctx.world_size * (ctx.world_size + 1) / 2.0;
  std::printf("rank %d of %d: sum %g\n", ctx.rank, ctx.world_size, sum);
  dist::finish_distributed(ctx);
  return sum == expected ? 0 : 1;
}
