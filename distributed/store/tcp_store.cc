#include "distributed/store/tcp_store.h"

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "distributed/store/store_wire.h"
#include "distributed/store/tcp_store_server.h"
#include "tensor/error.h"

namespace brisk::dist {

using wire::Op;
using wire::Status;

struct TCPStore::Reply {
  Status status;
  std::vector<uint8_t> payload;  // after the status byte
  wire::Reader reader() const { return wire::Reader(payload.data(), payload.size()); }
};

std::string store_token_from_env() {
  const char* token = std::getenv("BRISK_STORE_TOKEN");
  return token ? token : "";
}

TCPStore::TCPStore(std::string host, const TCPStoreOptions& options)
    : Store(options.timeout), host_(std::move(host)), port_(options.port), token_(options.token) {
  if (options.is_master) {
    server_ = std::make_unique<TCPStoreServer>(host_, port_, token_);
    port_ = server_->port();
  }
  pool_.push_back(connect_with_backoff(options.connect_timeout.value_or(timeout())));
}

TCPStore::~TCPStore() = default;

net::Fd TCPStore::connect_with_backoff(std::chrono::milliseconds within) {
  std::string where = fmt::format("TCPStore {}:{}", host_, port_);
  auto deadline = net::Clock::now() + within;
  auto delay = std::chrono::milliseconds(10);
  std::string error;
  for (;;) {
    net::Fd fd = net::try_connect(net::resolve(host_, port_), &error);
    if (fd.valid()) {
      const std::vector<uint8_t> frame = wire::Writer(Op::kAuth).str(token_).frame();
      net::send_all(fd.get(), frame.data(), frame.size(), where);
      // The reply is awaited one timeout at most, however long connecting took: a client with
      // a short timeout gives up on a server that accepts connections but is stopped.
      auto replied = net::Clock::now() + timeout();
      uint32_t len = 0;
      net::recv_all(fd.get(), &len, 4, replied, where + " (token)");
      BRISK_CHECK(len >= 1 && len <= wire::kMaxFrame, "{}: malformed reply to the token", where);
      std::vector<uint8_t> payload(len);
      net::recv_all(fd.get(), payload.data(), len, replied, where);
      BRISK_CHECK(payload[0] == static_cast<uint8_t>(Status::kOk),
                  "{}: the server refused this client's token (BRISK_STORE_TOKEN differs from the job's)", where);
      return fd;
    }
    BRISK_CHECK(net::Clock::now() + delay < deadline, "{}: cannot connect within {} ms: {}", where, within.count(),
                error);
    std::this_thread::sleep_for(delay);
    delay = std::min(delay * 2, std::chrono::milliseconds(1000));
  }
}

std::shared_ptr<Store> TCPStore::with_timeout(std::chrono::milliseconds timeout) const {
  TCPStoreOptions options;
  options.port = port_;
  options.timeout = timeout;
  options.token = token_;
  return std::make_shared<TCPStore>(host_, options);
}

std::string TCPStore::address() const { return fmt::format("{}:{}", host_, port_); }

TCPStore::Reply TCPStore::request(const std::vector<uint8_t>& frame, const char* what,
                                  std::chrono::milliseconds server_wait) {
  net::Fd fd;
  {
    std::lock_guard<std::mutex> lock(pool_mutex_);
    if (!pool_.empty()) {
      fd = std::move(pool_.back());
      pool_.pop_back();
    }
  }
  if (!fd.valid()) fd = connect_with_backoff(timeout());
  std::string where = fmt::format("TCPStore {}:{} {}", host_, port_, what);
  auto deadline = net::Clock::now() + server_wait + timeout();
  // On any exception fd is closed here, so a half-read reply never reaches another call.
  net::send_all(fd.get(), frame.data(), frame.size(), where);
  uint32_t len = 0;
  net::recv_all(fd.get(), &len, 4, deadline, where);
  BRISK_CHECK(len >= 1 && len <= wire::kMaxFrame, "{}: malformed reply (length {})", where, len);
  std::vector<uint8_t> payload(len);
  net::recv_all(fd.get(), payload.data(), len, deadline, where);
  Reply reply{static_cast<Status>(payload[0]), std::vector<uint8_t>(payload.begin() + 1, payload.end())};
  {
    std::lock_guard<std::mutex> lock(pool_mutex_);
    pool_.push_back(std::move(fd));
  }
  if (reply.status == Status::kError) {
    auto r = reply.reader();
    BRISK_FAIL("{}: {}", where, r.str());
  }
  return reply;
}

namespace {

Bytes to_bytes(const std::string& s) { return Bytes(s.begin(), s.end()); }

[[noreturn]] void fail_timeout(const char* op, const std::vector<std::string>& missing,
                               std::chrono::milliseconds timeout) {
  BRISK_FAIL("TCPStore {}: timed out after {} ms waiting for keys [{}]", op, timeout.count(), fmt::join(missing, ", "));
}

}  // namespace

void TCPStore::set(const std::string& key, const Bytes& value) {
  request(wire::Writer(Op::kSet).str(key).bytes(value).frame(), "set");
}

Bytes TCPStore::get(const std::string& key) {
  Reply reply = request(wire::Writer(Op::kGet).str(key).i64(timeout().count()).frame(), "get", timeout());
  if (reply.status == Status::kTimeout) fail_timeout("get", {key}, timeout());
  return to_bytes(reply.reader().str());
}

int64_t TCPStore::add(const std::string& key, int64_t delta) {
  return request(wire::Writer(Op::kAdd).str(key).i64(delta).frame(), "add").reader().i64();
}

Bytes TCPStore::compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
  Reply reply = request(wire::Writer(Op::kCompareSet).str(key).bytes(expected).bytes(desired).frame(), "compare_set");
  return to_bytes(reply.reader().str());
}

bool TCPStore::check(const std::vector<std::string>& keys) {
  return request(wire::Writer(Op::kCheck).keys(keys).frame(), "check").reader().u8() != 0;
}

void TCPStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  Reply reply = request(wire::Writer(Op::kWait).keys(keys).i64(timeout.count()).frame(), "wait", timeout);
  if (reply.status == Status::kTimeout) fail_timeout("wait", reply.reader().keys(), timeout);
}

bool TCPStore::delete_key(const std::string& key) {
  return request(wire::Writer(Op::kDelete).str(key).frame(), "delete_key").reader().u8() != 0;
}

int64_t TCPStore::num_keys() { return request(wire::Writer(Op::kNumKeys).frame(), "num_keys").reader().i64(); }

}  // namespace brisk::dist
