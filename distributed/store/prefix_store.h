#pragma once
// dist::PrefixStore: a namespace inside another store; every key becomes "<prefix>/<key>"
// (as c10d::PrefixStore). Process groups use one per group so their keys never collide.
// Blocking calls are timed by the underlying store's timeout.
#include <memory>
#include <string>

#include "distributed/store/store.h"

namespace brisk::dist {

class PrefixStore : public Store {
 public:
  PrefixStore(std::string prefix, std::shared_ptr<Store> store);

  void set(const std::string& key, const Bytes& value) override;
  Bytes get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t delta) override;
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override;
  bool check(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;
  bool delete_key(const std::string& key) override;
  // Counts the keys of the underlying store, as PyTorch does.
  int64_t num_keys() override;
  using Store::set;
  using Store::wait;
  std::shared_ptr<Store> with_timeout(std::chrono::milliseconds timeout) const override;

  std::string address() const override { return store_->address(); }

  const std::shared_ptr<Store>& underlying() const { return store_; }

 private:
  std::string join(const std::string& key) const { return prefix_ + "/" + key; }
  std::vector<std::string> join(const std::vector<std::string>& keys) const;

  std::string prefix_;
  std::shared_ptr<Store> store_;
};

}  // namespace brisk::dist
