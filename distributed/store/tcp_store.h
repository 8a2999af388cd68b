#pragma once
// dist::TCPStore: the Store of a job, served over TCP by rank 0 (as c10d::TCPStore).
//
//   TCPStoreOptions options;
//   options.is_master = rank == 0;
//   options.port = 29500;
//   options.token = getenv("BRISK_STORE_TOKEN");
//   TCPStore store("127.0.0.1", options);
//
// The master hosts a TCPStoreServer bound to `host`'s address only. Clients connect with
// back-off (10 ms doubling to 1 s) until the store timeout, then present the token. Each
// calling thread borrows its own connection from a small pool, so a blocking get() in one
// thread never delays another; a connection that fails is dropped and the next call
// reconnects. Blocking get/wait are timed by the server; a lost server is reported as such.
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "distributed/store/socket.h"
#include "distributed/store/store.h"

namespace brisk::dist {

class TCPStoreServer;

struct TCPStoreOptions {
  uint16_t port = 29500;  // 0 with is_master: a free port, see TCPStore::port()
  bool is_master = false;
  std::chrono::milliseconds timeout = Store::kDefaultTimeout;
  // How long the constructor tries to reach the server (unset: `timeout`); later reconnects
  // take `timeout`. A rendezvous gives up on a server that never started sooner than on a call.
  std::optional<std::chrono::milliseconds> connect_timeout;
  std::string token;  // the job's secret (BRISK_STORE_TOKEN); empty when the job has none
};

class TCPStore : public Store {
 public:
  TCPStore(std::string host, const TCPStoreOptions& options);
  ~TCPStore() override;

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

  std::string address() const override;
  uint16_t port() const { return port_; }

 private:
  struct Reply;
  // Sends one request frame and reads its reply; `server_wait` is how long the server may
  // hold it (blocking ops), added to the store timeout for the client's own deadline.
  Reply request(const std::vector<uint8_t>& frame, const char* what,
                std::chrono::milliseconds server_wait = std::chrono::milliseconds(0));
  net::Fd connect_with_backoff(std::chrono::milliseconds within);

  std::string host_;
  uint16_t port_;
  std::string token_;
  std::unique_ptr<TCPStoreServer> server_;
  std::mutex pool_mutex_;
  std::vector<net::Fd> pool_;
};

// The job's token from BRISK_STORE_TOKEN ("" when unset).
std::string store_token_from_env();

}  // namespace brisk::dist
