#include "distributed/join.h"

#include <cstdio>
#include <exception>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "distributed/host_value_collectives.h"
#include "tensor/error.h"

namespace brisk::dist {

namespace {

struct Vote {
  std::vector<int> training, joined;
};

// One all-reduce per iteration: slot r is 1 while rank r trains, 0 once it has joined. The
// joined ranks' finish() and the training ranks' notify_join_context meet in it.
Vote vote(ProcessGroup& group, bool training) {
  std::vector<int64_t> slots(static_cast<size_t>(group.size()), 0);
  slots[group.rank()] = training ? 1 : 0;
  slots = all_reduce_values(group, slots, ReduceOp::SUM);
  Vote result;
  for (int r = 0; r < group.size(); ++r) (slots[r] != 0 ? result.training : result.joined).push_back(r);
  return result;
}

}  // namespace

Join::Join(std::vector<std::reference_wrapper<Joinable>> joinables, const JoinOptions& options)
    : joinables_(std::move(joinables)), options_(options) {
  BRISK_CHECK(!joinables_.empty(), "Join: needs at least one Joinable");
  group_ = joinables_.front().get().join_process_group();
  for (size_t i = 0; i < joinables_.size(); ++i) {
    BRISK_CHECK(joinables_[i].get().join_process_group() == group_,
                "Join: Joinable {} uses another process group than Joinable 0; every Joinable of a Join must use the "
                "same group",
                i);
  }
  for (size_t i = 0; i < joinables_.size(); ++i) {
    joinables_[i].get().join_config_ = JoinConfig{options_.enable(), options_.throw_on_early_termination(), i == 0};
  }
  for (Joinable& joinable : joinables_) hooks_.push_back(joinable.join_hook(options_));
}

Join::~Join() {
  if (options_.enable() && !finished_ && std::uncaught_exceptions() == 0) {
    // Not an exception (a destructor must not throw), but the likely cause of a hang elsewhere.
    std::fprintf(stderr,
                 "Join on rank %d went out of scope without finish(): ranks still training will wait in their next "
                 "collective until it times out\n",
                 group_->rank());
  }
  for (Joinable& joinable : joinables_) joinable.join_config_ = JoinConfig{};
}

void Join::finish() {
  BRISK_CHECK(!finished_, "Join::finish: called twice on rank {}", group_->rank());
  finished_ = true;
  if (!options_.enable()) return;
  bool is_last_joiner = true;
  for (;;) {
    const std::vector<int> training = vote(*group_, false).training;
    if (training.empty()) break;
    BRISK_CHECK(!options_.throw_on_early_termination(),
                "Join: rank {} exhausted all inputs (throw_on_early_termination; ranks {} still train)", group_->rank(),
                fmt::join(training, ", "));
    for (auto& hook : hooks_) hook->main_hook();
    is_last_joiner = false;
  }
  for (auto& hook : hooks_) hook->post_hook(is_last_joiner);
}

void Join::notify_join_context(Joinable& joinable) {
  const JoinConfig& config = joinable.join_config();
  if (!config.enable || !config.is_first_joinable) return;
  ProcessGroup& group = *joinable.join_process_group();
  const Vote seen = vote(group, true);
  if (config.throw_on_early_termination && !seen.joined.empty()) {
    BRISK_FAIL(
        "Join: detected ranks that exhausted their inputs ({}); throwing on every rank (throw_on_early_termination), "
        "seen on rank {}",
        fmt::join(seen.joined, ", "), group.rank());
  }
}

}  // namespace brisk::dist
