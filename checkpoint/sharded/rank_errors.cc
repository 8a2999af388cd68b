#include "checkpoint/sharded/rank_errors.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "distributed/host_value_collectives.h"
#include "tensor/error.h"

namespace brisk::checkpoint {

void raise_if_any_rank_failed(dist::ProcessGroup& group, const std::string& error, const std::string& what) {
  const std::vector<int64_t> failed = dist::all_gather_values(group, {error.empty() ? 0 : 1});
  std::vector<int> ranks;
  for (size_t r = 0; r < failed.size(); ++r) {
    if (failed[r] != 0) ranks.push_back(static_cast<int>(r));
  }
  if (ranks.empty()) return;
  BRISK_CHECK(error.empty(), "{}", error);
  BRISK_FAIL("{} on rank {}: rank(s) {} failed (their errors name the cause)", what, group.rank(),
             fmt::join(ranks, ", "));
}

}  // namespace brisk::checkpoint
