#pragma once
// Making one rank's failure every rank's error, so that a sharded save or load never leaves
// some ranks waiting in a later collective for a peer that gave up.
#include <string>

#include "distributed/process_group.h"

namespace brisk::checkpoint {

// Collective: every rank passes its own error ("" when it succeeded). When any rank failed,
// raises brisk::Error on every rank: its own message on a failed rank, elsewhere one naming
// `what` and the failed ranks.
void raise_if_any_rank_failed(dist::ProcessGroup& group, const std::string& error, const std::string& what);

}  // namespace brisk::checkpoint
