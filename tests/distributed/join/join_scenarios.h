#pragma once
// DistributedDataParallel's features under a dist::Join on uneven inputs, against one process,
// written against any ProcessGroup (join_threads_test runs them on thread ranks, join_worker
// across processes).
//
// Rank r trains {3, 1, 2}[r] steps (so ranks join at different iterations, one before the
// bucket rebuild) inside a Join with divide_by_initial_world_size(false): at iteration i the
// gradients are the average over the ranks still training, which is the gradient of the mean
// of their losses. The reference, computed on every rank, trains one model on exactly that
// loss; after finish() every rank's parameters (the last joiner's model) must equal it.
//   unused       BranchNet with find_unused_parameters: rank r uses the branch head on the
//                iterations where r + i is odd (some parameters unused on every rank still
//                training), several buckets.
//   rebuild      ReversedNet, several buckets rebuilt after the first step in rank 0's order.
//   bucket_view  gradient_as_bucket_view, several buckets.
//   no_sync      two micro-batches per step, the first under no_sync (the joined ranks
//                shadow the iterations without synchronization too).
#include <memory>
#include <string>
#include <vector>

#include "distributed/process_group.h"

namespace brisk::dist::testing {

const std::vector<std::string>& join_scenario_names();

// The largest |parameter - reference| on this rank after the Join.
double run_join_scenario(const std::string& name, const std::shared_ptr<ProcessGroup>& group);

}  // namespace brisk::dist::testing
