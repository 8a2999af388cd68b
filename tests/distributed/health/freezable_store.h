#pragma once
// FreezableStore: a Store whose every call blocks while it is frozen: what the peers of a
// stopped process see of it (its calls stop), and what a stopped store host looks like to that
// process's client. Each call takes at least `delay` (a distant store). A client from
// with_timeout() shares the freeze and gives up waiting for the thaw after its timeout, as a
// TCPStore client does.
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "distributed/store/store.h"

namespace brisk::testing {

class FreezableStore : public dist::Store {
 public:
  explicit FreezableStore(std::shared_ptr<dist::Store> inner,
                          std::chrono::milliseconds delay = std::chrono::milliseconds(0))
      : FreezableStore(std::move(inner), delay, std::make_shared<Freeze>(), std::nullopt) {}
  void freeze(bool frozen) {
    {
      std::lock_guard<std::mutex> lock(freeze_->mutex);
      freeze_->frozen = frozen;
    }
    freeze_->thawed.notify_all();
  }
  void set(const std::string& key, const dist::Bytes& value) override { gate()->set(key, value); }
  dist::Bytes get(const std::string& key) override { return gate()->get(key); }
  int64_t add(const std::string& key, int64_t delta) override { return gate()->add(key, delta); }
  dist::Bytes compare_set(const std::string& key, const dist::Bytes& expected, const dist::Bytes& desired) override {
    return gate()->compare_set(key, expected, desired);
  }
  bool check(const std::vector<std::string>& keys) override { return gate()->check(keys); }
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override {
    gate()->wait(keys, timeout);
  }
  bool delete_key(const std::string& key) override { return gate()->delete_key(key); }
  int64_t num_keys() override { return gate()->num_keys(); }
  std::shared_ptr<dist::Store> with_timeout(std::chrono::milliseconds timeout) const override {
    return std::shared_ptr<dist::Store>(new FreezableStore(inner_->with_timeout(timeout), delay_, freeze_, timeout));
  }
  using dist::Store::set;
  using dist::Store::wait;

 private:
  struct Freeze {
    std::mutex mutex;
    std::condition_variable thawed;
    bool frozen = false;
  };
  FreezableStore(std::shared_ptr<dist::Store> inner, std::chrono::milliseconds delay, std::shared_ptr<Freeze> freeze,
                 std::optional<std::chrono::milliseconds> call_timeout)
      : inner_(std::move(inner)), delay_(delay), freeze_(std::move(freeze)), call_timeout_(call_timeout) {}
  dist::Store* gate() {
    std::this_thread::sleep_for(delay_);
    std::unique_lock<std::mutex> lock(freeze_->mutex);
    auto thawed = [&] { return !freeze_->frozen; };
    if (!call_timeout_) freeze_->thawed.wait(lock, thawed);
    else if (!freeze_->thawed.wait_for(lock, *call_timeout_, thawed)) throw std::runtime_error("the store is frozen");
    return inner_.get();
  }
  std::shared_ptr<dist::Store> inner_;
  const std::chrono::milliseconds delay_;
  const std::shared_ptr<Freeze> freeze_;
  const std::optional<std::chrono::milliseconds> call_timeout_;
};

}  // namespace brisk::testing
