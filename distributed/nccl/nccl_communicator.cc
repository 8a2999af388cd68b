#include "distributed/nccl/nccl_communicator.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

#include "tensor/error.h"

namespace brisk::dist {
namespace {

void wait_for_every_rank(Store& store, int rank, int size, std::chrono::milliseconds timeout) {
  store.set(fmt::format("init/{}", rank), std::string("1"));
  std::vector<std::string> keys;
  for (int r = 0; r < size; ++r) keys.push_back(fmt::format("init/{}", r));
  try {
    store.wait(keys, timeout);
  } catch (const Error&) {
    std::vector<int> missing;
    for (int r = 0; r < size; ++r)
      if (!store.check({keys[r]})) missing.push_back(r);
    BRISK_FAIL("ProcessGroupNCCL: rank {}: creating the NCCL communicator: ranks {} did not arrive within {} ms", rank,
               missing, timeout.count());
  }
}

}  // namespace

Communicator::Communicator(Store& store, int rank, int size, std::chrono::milliseconds timeout,
                           CommunicatorCalls& calls)
    : calls_(calls) {
  wait_for_every_rank(store, rank, size, timeout);
  Bytes id;
  if (rank == 0) {
    id = calls_.unique_id();
    store.set("unique_id", id);
  } else {
    id = store.get("unique_id");
  }
  calls_.init_rank(id, size, rank);
}

void Communicator::abort() noexcept {
  std::call_once(aborted_, [this] { calls_.abort(); });
}

}  // namespace brisk::dist
