#include "distributed/gloo/process_group_gloo_impl.h"

#include <gloo/transport/tcp/device.h>
#include <signal.h>

#include <algorithm>
#include <thread>

#include "distributed/collective_checks.h"
#include "distributed/gloo/gloo_store.h"
#include "distributed/health/collective_event.h"
#include "tensor/error.h"

namespace brisk::dist {
namespace {

// Gloo writes to its peers' sockets without MSG_NOSIGNAL, so a write to a peer that died
// raises SIGPIPE, whose default action kills this process before the collective can fail
// with an error naming the absent rank. A handler the program installed itself is kept.
void ignore_default_sigpipe() {
  struct sigaction current {};
  if (sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) signal(SIGPIPE, SIG_IGN);
}

// Point-to-point messages use Gloo slots of this prefix; collectives use Gloo's own prefixes
// with the signature's fingerprint as the tag.
constexpr uint64_t kP2PSlotPrefix = uint64_t{0xff} << 56;

}  // namespace

ProcessGroupGloo::Impl::Impl(std::shared_ptr<Store> store_, int rank_, int size_, ProcessGroupOptions options_,
                             const std::string& host, std::string name_)
    : store(std::move(store_)), rank(rank_), size(size_), options(options_), name(std::move(name_)) {
  check_group_arguments(fmt::format("ProcessGroupGloo '{}'", name), store.get(), rank, size, options);
  const std::chrono::milliseconds beat_timeout = heartbeat_timeout(options);
  ignore_default_sigpipe();
  try {
    gloo::transport::tcp::attr attr;
    attr.hostname = host;
    device = gloo::transport::tcp::CreateDevice(attr);
    context = std::make_shared<gloo::rendezvous::Context>(rank, size);
    context->setTimeout(options.timeout);
    GlooStore gloo_store(store);
    context->connectFullMesh(gloo_store, device);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    BRISK_FAIL("{}: cannot connect the ranks on {} within {} ms: {}", where(), host, options.timeout.count(), e.what());
  }
  watchdog_ = std::make_unique<Watchdog>(*store, rank, size, options, beat_timeout, options.check_desync, where(),
                                         [this](const std::string& m) { break_group(m); });
  p2p_waiter_ = std::make_unique<GlooWorker>();
  worker_ = std::make_unique<GlooWorker>();
}

std::string ProcessGroupGloo::Impl::where() const {
  return fmt::format("ProcessGroupGloo '{}' rank {}/{}", name, rank, size);
}

std::shared_ptr<WorkGloo> ProcessGroupGloo::Impl::new_work() {
  auto work = std::make_shared<WorkGloo>();
  std::lock_guard<std::mutex> lock(mutex_);
  unfinished_.erase(std::remove_if(unfinished_.begin(), unfinished_.end(),
                                   [](const std::weak_ptr<WorkGloo>& w) {
                                     auto p = w.lock();
                                     return !p || p->is_completed();
                                   }),
                    unfinished_.end());
  unfinished_.push_back(work);
  return work;
}

void ProcessGroupGloo::Impl::break_group(const std::string& message) {
  std::vector<std::weak_ptr<WorkGloo>> failing;
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

std::string ProcessGroupGloo::Impl::broken_reason() {
  std::lock_guard<std::mutex> lock(mutex_);
  return broken_;
}

std::string ProcessGroupGloo::Impl::not_run(const std::string& op, const std::string& earlier) const {
  return fmt::format("{}: {} not run: an earlier collective on this group failed: {}", where(), op, earlier);
}

std::shared_ptr<Work> ProcessGroupGloo::Impl::refused_if_broken(const std::string& op) {
  std::string earlier = broken_reason();
  if (earlier.empty()) return nullptr;
  auto work = std::make_shared<WorkGloo>();
  work->finish(std::make_exception_ptr(Error(not_run(op, earlier))));
  return work;
}

std::shared_ptr<Work> ProcessGroupGloo::Impl::collective(CollectiveSignature sig, std::shared_ptr<HostStaging> staging,
                                                         std::function<void(uint32_t tag)> body) {
  // Behind a failed collective (possibly stuck in Gloo until its timeout), fail at once.
  if (auto refused = refused_if_broken(collective_name(sig.kind))) return refused;
  auto work = new_work();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    sig.seq = next_seq_++;
  }
  worker_->push({work, [this, sig, staging = std::move(staging), body = std::move(body)] {
                   run(sig, body);
                   if (staging) staging->copy_back();
                 }});
  return work;
}

// The tag is the signature's fingerprint: ranks that called different things use different
// Gloo slots, so their messages never meet (no buffer-size abort inside Gloo); the collective
// then fails by the desync monitor or by the timeout, and the error says why.
void ProcessGroupGloo::Impl::run(const CollectiveSignature& sig, const std::function<void(uint32_t)>& body) {
  watchdog_->monitor().record(sig);
  std::string earlier = broken_reason();
  BRISK_CHECK(earlier.empty(), "{}", not_run(sig.str(), earlier));
  profiler::RecordScope scope(
      profiler::Category::Collective, [&] { return collective_event_name("gloo", sig); },
      [&] { return collective_event_args(sig, name, size); });
  auto start = Clock::now();
  try {
    body(sig.fingerprint());
  } catch (const std::exception& e) {
    fail(sig, start, e.what());
  }
  watchdog_->monitor().finished(sig.seq);
}

void ProcessGroupGloo::Impl::fail(const CollectiveSignature& sig, Clock::time_point start, const std::string& cause) {
  std::string earlier = broken_reason();
  if (!earlier.empty()) BRISK_FAIL("{}", earlier);  // the monitor failed it already, saying why
  auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
  std::string message =
      watchdog_->failure(fmt::format("{} #{} failed after {} ms (timeout {} ms): {}", collective_name(sig.kind),
                                     sig.seq, elapsed, options.timeout.count(), cause),
                         sig.seq);
  break_group(message);
  // The other ranks fail at about the same moment and ask the store too; rank 0 hosts it, so
  // give them time to read it before this failure ends the process.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  BRISK_FAIL("{}", message);
}

std::shared_ptr<Work> ProcessGroupGloo::Impl::p2p(bool is_send, Tensor tensor, std::shared_ptr<HostStaging> staging,
                                                  int peer, int tag) {
  std::string op = fmt::format("{} rank {} (tag {})", is_send ? "send to" : "recv from", peer, tag);
  if (auto refused = refused_if_broken(op)) return refused;
  auto work = new_work();
  std::string what = fmt::format("{} {}", where(), op);
  auto fail_work = [work, what](const std::exception& e) {
    work->finish(std::make_exception_ptr(Error(fmt::format("{} failed: {}", what, e.what()))));
  };
  auto post = [this, work, is_send, tensor, staging, peer, tag, fail_work] {
    try {
      std::string earlier = broken_reason();
      BRISK_CHECK(earlier.empty(), "an earlier collective on this group failed: {}", earlier);
      std::shared_ptr<gloo::transport::UnboundBuffer> buffer =
          context->createUnboundBuffer(tensor.raw_data(), tensor.nbytes());
      uint64_t slot = kP2PSlotPrefix | static_cast<uint32_t>(tag);
      if (is_send) buffer->send(peer, slot);
      else buffer->recv(peer, slot);
      auto complete = [this, buffer, work, tensor, staging, is_send, fail_work] {
        try {
          if (is_send) buffer->waitSend(options.timeout);
          else buffer->waitRecv(options.timeout);
          staging->copy_back();
          work->finish(nullptr);
        } catch (const std::exception& e) {
          fail_work(e);
        }
      };
      p2p_waiter_->push({std::make_shared<WorkGloo>(), complete});
    } catch (const std::exception& e) {
      fail_work(e);
    }
  };
  worker_->push({std::make_shared<WorkGloo>(), post});
  return work;
}

}  // namespace brisk::dist
