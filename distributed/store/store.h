#pragma once
// dist::Store: the key-value store that ranks rendezvous through (as c10d::Store). Values
// are bytes; keys are strings. Implementations: TCPStore (a server hosted by rank 0),
// FileStore (a file on a shared file system), PrefixStore (a namespace inside another store).
//
// Every blocking call waits at most timeout() and then throws a brisk::Error that names the
// keys it waited for.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "brisk/requires_cxx17.h"

namespace brisk::dist {

using Bytes = std::vector<uint8_t>;

class Store {
 public:
  static constexpr std::chrono::milliseconds kDefaultTimeout{std::chrono::minutes(5)};

  explicit Store(std::chrono::milliseconds timeout = kDefaultTimeout) : timeout_(timeout) {}
  virtual ~Store() = default;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  virtual void set(const std::string& key, const Bytes& value) = 0;
  // Waits until the key exists, then returns its value.
  virtual Bytes get(const std::string& key) = 0;
  // Adds delta to the integer stored at key (0 when absent) and returns the new value.
  // The value is kept as its decimal text, as in PyTorch.
  virtual int64_t add(const std::string& key, int64_t delta) = 0;
  // Sets key to desired if its current value is expected (an absent key matches an empty
  // expected); returns the value the key holds afterwards.
  virtual Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) = 0;
  // True when every key exists; does not wait.
  virtual bool check(const std::vector<std::string>& keys) = 0;
  // Waits until every key exists, at most `timeout`.
  virtual void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) = 0;
  void wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }
  // Removes the key; false when it did not exist.
  virtual bool delete_key(const std::string& key) = 0;
  virtual int64_t num_keys() = 0;

  void set(const std::string& key, const std::string& value) { set(key, Bytes(value.begin(), value.end())); }
  std::string get_string(const std::string& key) {
    Bytes value = get(key);
    return std::string(value.begin(), value.end());
  }

  // Another client of the same store whose every call, blocking or not, gives up with an error
  // after `timeout`: a background thread that must not hang on a store whose host stopped
  // asks through one. (A FileStore's calls wait only on its file's lock.)
  virtual std::shared_ptr<Store> with_timeout(std::chrono::milliseconds timeout) const = 0;

  // Where the store is served from, for messages naming who failed to answer: "host:port"
  // for a TCPStore; empty for a store that no process serves (a FileStore).
  virtual std::string address() const { return {}; }

  std::chrono::milliseconds timeout() const { return timeout_; }

 private:
  std::chrono::milliseconds timeout_;
};

}  // namespace brisk::dist
