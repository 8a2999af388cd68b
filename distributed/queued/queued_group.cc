#include "distributed/queued/queued_group.h"

#include <algorithm>
#include <thread>

#include "distributed/health/collective_event.h"
#include "profiler/record.h"
#include "tensor/error.h"

namespace brisk::dist {

QueuedGroup::QueuedGroup(const char* backend, std::string name, std::string where, std::shared_ptr<Store> store,
                         int rank, int size, const ProcessGroupOptions& options, std::chrono::milliseconds beat_timeout)
    : backend_(backend),
      name_(std::move(name)),
      where_(std::move(where)),
      store_(std::move(store)),
      size_(size),
      timeout_(options.timeout) {
  watchdog_ = std::make_unique<Watchdog>(*store_, rank, size, options, beat_timeout, options.check_desync, where_,
                                         [this](const std::string& m) { break_group(m); });
  send_waiter_ = std::make_unique<WorkQueue>();
  worker_ = std::make_unique<WorkQueue>();
}

QueuedGroup::~QueuedGroup() = default;

std::shared_ptr<QueuedWork> QueuedGroup::new_work() {
  auto work = std::make_shared<QueuedWork>();
  std::lock_guard<std::mutex> lock(mutex_);
  unfinished_.erase(std::remove_if(unfinished_.begin(), unfinished_.end(),
                                   [](const std::weak_ptr<QueuedWork>& w) {
                                     auto p = w.lock();
                                     return !p || p->is_completed();
                                   }),
                    unfinished_.end());
  unfinished_.push_back(work);
  return work;
}

void QueuedGroup::break_group(const std::string& message) {
  std::vector<std::weak_ptr<QueuedWork>> failing;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!broken_.empty()) return;
    broken_ = message;
    failing.swap(unfinished_);
  }
  auto error = std::make_exception_ptr(Error(message));
  for (auto& w : failing)
    if (auto work = w.lock()) work->finish(error);
}

std::string QueuedGroup::broken_reason() {
  std::lock_guard<std::mutex> lock(mutex_);
  return broken_;
}

std::string QueuedGroup::not_run(const std::string& op, const std::string& earlier) const {
  return fmt::format("{}: {} not run: an earlier collective on this group failed: {}", where_, op, earlier);
}

std::shared_ptr<Work> QueuedGroup::refused_if_broken(const std::string& op) {
  std::string earlier = broken_reason();
  if (earlier.empty()) return nullptr;
  auto work = std::make_shared<QueuedWork>();
  work->finish(std::make_exception_ptr(Error(not_run(op, earlier))));
  return work;
}

std::shared_ptr<Work> QueuedGroup::collective(CollectiveSignature sig, std::shared_ptr<TransportBuffers> buffers,
                                              std::function<void(uint32_t tag)> body) {
  // Behind a failed collective (possibly stuck in the transport until its timeout), fail at once.
  if (auto refused = refused_if_broken(collective_name(sig.kind))) return refused;
  auto work = new_work();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    sig.seq = next_seq_++;
  }
  worker_->push({work, [this, sig, buffers = std::move(buffers), body = std::move(body)] {
                   run(sig, body);
                   if (buffers) buffers->copy_back();
                 }});
  return work;
}

// The tag is the signature's fingerprint: ranks that called different things use different
// transport slots (Gloo's), so their messages never meet (no buffer-size abort inside the
// transport); the collective then fails by the desync monitor or by the timeout, and the
// error says why.
void QueuedGroup::run(const CollectiveSignature& sig, const std::function<void(uint32_t)>& body) {
  watchdog_->monitor().record(sig);
  std::string earlier = broken_reason();
  BRISK_CHECK(earlier.empty(), "{}", not_run(sig.str(), earlier));
  profiler::RecordScope scope(
      profiler::Category::Collective, [&] { return collective_event_name(backend_, sig); },
      [&] { return collective_event_args(sig, name_, size_); });
  auto start = Clock::now();
  try {
    body(sig.fingerprint());
  } catch (const std::exception& e) {
    fail(sig, start, e.what());
  }
  watchdog_->monitor().finished(sig.seq);
}

void QueuedGroup::fail(const CollectiveSignature& sig, Clock::time_point start, const std::string& cause) {
  std::string earlier = broken_reason();
  if (!earlier.empty()) BRISK_FAIL("{}", earlier);  // the monitor failed it already, saying why
  auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
  std::string message =
      watchdog_->failure(fmt::format("{} #{} failed after {} ms (timeout {} ms): {}", collective_name(sig.kind),
                                     sig.seq, elapsed, timeout_.count(), cause),
                         sig.seq);
  break_group(message);
  // The other ranks fail at about the same moment and ask the store too; rank 0 hosts it, so
  // give them time to read it before this failure ends the process.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  BRISK_FAIL("{}", message);
}

std::shared_ptr<Work> QueuedGroup::p2p(bool is_send, int peer, int tag, const std::string& op,
                                       std::shared_ptr<TransportBuffers> buffers,
                                       std::function<std::function<void()>()> post) {
  if (auto refused = refused_if_broken(op)) return refused;
  auto work = new_work();
  std::string what = fmt::format("{} {}", where_, op);
  auto fail_work = [work, what](const std::exception& e) {
    work->finish(std::make_exception_ptr(Error(fmt::format("{} failed: {}", what, e.what()))));
  };
  auto posting = [this, is_send, peer, tag, work, buffers, post = std::move(post), fail_work] {
    try {
      std::string earlier = broken_reason();
      BRISK_CHECK(earlier.empty(), "an earlier collective on this group failed: {}", earlier);
      std::function<void()> wait = post();
      auto complete = [work, buffers, wait = std::move(wait), fail_work] {
        try {
          wait();
          buffers->copy_back();
          work->finish(nullptr);
        } catch (const std::exception& e) {
          fail_work(e);
        }
      };
      std::unique_ptr<WorkQueue>& waiter = is_send ? send_waiter_ : recv_waiters_[{peer, tag}];
      if (!waiter) waiter = std::make_unique<WorkQueue>();
      waiter->push({std::make_shared<QueuedWork>(), complete});
    } catch (const std::exception& e) {
      fail_work(e);
    }
  };
  worker_->push({std::make_shared<QueuedWork>(), posting});
  return work;
}

}  // namespace brisk::dist
