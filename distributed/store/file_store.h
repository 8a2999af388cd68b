#pragma once
// dist::FileStore: a Store in one file on a file system every rank sees (init_method
// "file://path"), as c10d::FileStore.
//
// The file is an append-only log of records (a set or a delete of one key), guarded by
// flock(2): writers append under an exclusive lock, readers replay what was appended since
// their last read under a shared lock. Blocking get/wait poll the file every 10 ms.
#include <map>
#include <mutex>
#include <string>

#include "distributed/store/store.h"

namespace brisk::dist {

class FileStore : public Store {
 public:
  explicit FileStore(std::string path, std::chrono::milliseconds timeout = kDefaultTimeout);

  void set(const std::string& key, const Bytes& value) override;
  Bytes get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t delta) override;
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override;
  bool check(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;
  using Store::set;
  using Store::wait;
  std::shared_ptr<Store> with_timeout(std::chrono::milliseconds timeout) const override;

 private:
  class Locked;  // the open, locked file with the cache brought up to date
  std::string path_;
  std::mutex mutex_;
  std::map<std::string, Bytes> cache_;
  int64_t read_offset_ = 0;
};

}  // namespace brisk::dist
