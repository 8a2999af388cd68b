#include "distributed/store/prefix_store.h"

#include "tensor/error.h"

namespace brisk::dist {

PrefixStore::PrefixStore(std::string prefix, std::shared_ptr<Store> store)
    : Store(store ? store->timeout() : kDefaultTimeout), prefix_(std::move(prefix)), store_(std::move(store)) {
  BRISK_CHECK(store_ != nullptr, "PrefixStore '{}': the underlying store is null", prefix_);
}

std::vector<std::string> PrefixStore::join(const std::vector<std::string>& keys) const {
  std::vector<std::string> joined;
  joined.reserve(keys.size());
  for (const auto& key : keys) joined.push_back(join(key));
  return joined;
}

void PrefixStore::set(const std::string& key, const Bytes& value) { store_->set(join(key), value); }

Bytes PrefixStore::get(const std::string& key) { return store_->get(join(key)); }

int64_t PrefixStore::add(const std::string& key, int64_t delta) { return store_->add(join(key), delta); }

Bytes PrefixStore::compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
  return store_->compare_set(join(key), expected, desired);
}

bool PrefixStore::check(const std::vector<std::string>& keys) { return store_->check(join(keys)); }

void PrefixStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  store_->wait(join(keys), timeout);
}

bool PrefixStore::delete_key(const std::string& key) { return store_->delete_key(join(key)); }

int64_t PrefixStore::num_keys() { return store_->num_keys(); }

std::shared_ptr<Store> PrefixStore::with_timeout(std::chrono::milliseconds timeout) const {
  return std::make_shared<PrefixStore>(prefix_, store_->with_timeout(timeout));
}

}  // namespace brisk::dist
