#include "distributed/store/tcp_store_server.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include "distributed/store/socket.h"
#include "distributed/store/store_wire.h"
#include "tensor/error.h"

namespace brisk::dist {
namespace {

using net::Clock;
using wire::Op;
using wire::Status;

constexpr uint32_t kMaxAuthFrame = 4096;
constexpr size_t kMaxConnections = 4096;
constexpr size_t kMaxPendingOutput = 256u << 20;
constexpr auto kAuthTimeout = std::chrono::seconds(30);
constexpr int64_t kMaxWaitMs = int64_t{24} * 3600 * 1000;

bool same_token(const std::string& a, const std::string& b) {
  // Constant time in the content: every byte is looked at whatever differs first.
  uint8_t diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<uint8_t>(a[i] ^ (b.empty() ? 0 : b[i % b.size()]));
  return diff == 0;
}

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

struct Waiter {
  Op op;
  std::vector<std::string> keys;
  Clock::time_point deadline;
};

struct Conn {
  net::Fd fd;
  std::vector<uint8_t> in;
  std::vector<uint8_t> out;
  size_t out_pos = 0;
  bool authed = false;
  bool closing = false;  // drop once the pending reply is flushed
  bool dead = false;
  Clock::time_point auth_deadline;
  std::optional<Waiter> waiter;  // its blocking get or wait, until answered
};

}  // namespace

struct TCPStoreServer::State {
  std::string token;
  net::Fd listener;
  net::Address bound;
  net::Fd wake_read, wake_write;
  std::thread thread;
  std::map<int, Conn> conns;
  std::unordered_map<std::string, std::string> kv;
  std::vector<int> resume;

  void run();
  void accept_all();
  void read_from(Conn& c);
  void process(Conn& c);
  void handle(Conn& c, wire::Reader& r);
  void reply(Conn& c, const std::vector<uint8_t>& frame);
  void flush(Conn& c);
  std::vector<std::string> missing(const std::vector<std::string>& keys) const;
  // Replies to c's blocking get or wait, which it then no longer waits on.
  void answer(Conn& c, const std::vector<uint8_t>& frame);
  bool try_finish(Conn& c);
  void notify(const std::string& key);
  void expire(Clock::time_point now);
};

TCPStoreServer::TCPStoreServer(const std::string& host, uint16_t port, std::string token)
    : state_(std::make_unique<State>()) {
  state_->token = std::move(token);
  state_->listener = net::listen_on(host, port, &state_->bound);
  set_nonblocking(state_->listener.get());
  int fds[2];
  BRISK_CHECK(::pipe2(fds, O_NONBLOCK | O_CLOEXEC) == 0, "TCPStore server: pipe: {}", std::strerror(errno));
  state_->wake_read = net::Fd(fds[0]);
  state_->wake_write = net::Fd(fds[1]);
  state_->thread = std::thread([s = state_.get()] { s->run(); });
}

TCPStoreServer::~TCPStoreServer() {
  char byte = 1;
  (void)!::write(state_->wake_write.get(), &byte, 1);
  state_->thread.join();
}

uint16_t TCPStoreServer::port() const { return net::port_of(state_->bound); }

void TCPStoreServer::State::run() {
  std::vector<pollfd> fds;
  std::vector<int> ids;
  for (;;) {
    fds.clear();
    ids.clear();
    fds.push_back({wake_read.get(), POLLIN, 0});
    fds.push_back({listener.get(), POLLIN, 0});
    auto now = Clock::now();
    auto next = now + std::chrono::hours(1);
    for (auto& [id, c] : conns) {
      short events = 0;
      if (!c.waiter && !c.closing) events |= POLLIN;
      if (c.out_pos < c.out.size()) events |= POLLOUT;
      fds.push_back({c.fd.get(), events, 0});
      ids.push_back(id);
      if (c.waiter) next = std::min(next, c.waiter->deadline);
      if (!c.authed) next = std::min(next, c.auth_deadline);
    }
    auto wait_ms = std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count() + 1;
    int ready = ::poll(fds.data(), fds.size(), static_cast<int>(std::max<int64_t>(wait_ms, 0)));
    if (ready < 0 && errno != EINTR) return;
    if (fds[0].revents) return;
    if (fds[1].revents & POLLIN) accept_all();
    for (size_t i = 2; i < fds.size(); ++i) {
      Conn& c = conns.at(ids[i - 2]);
      short ev = fds[i].revents;
      if (ev & POLLOUT) flush(c);
      if (ev & POLLIN) read_from(c);
      else if (ev & (POLLHUP | POLLERR | POLLNVAL)) c.dead = true;
    }
    expire(Clock::now());
    // Connections whose wait a set just answered may have further requests buffered.
    while (!resume.empty()) {
      int id = resume.back();
      resume.pop_back();
      auto it = conns.find(id);
      if (it != conns.end()) process(it->second);
    }
    for (auto it = conns.begin(); it != conns.end();) {
      it = it->second.dead ? conns.erase(it) : std::next(it);
    }
  }
}

void TCPStoreServer::State::accept_all() {
  for (;;) {
    int fd = ::accept4(listener.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    if (conns.size() >= kMaxConnections) {
      ::close(fd);
      continue;
    }
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    Conn& c = conns[fd];
    c.fd = net::Fd(fd);
    c.auth_deadline = Clock::now() + kAuthTimeout;
  }
}

void TCPStoreServer::State::read_from(Conn& c) {
  uint8_t buffer[65536];
  for (;;) {
    ssize_t n = ::recv(c.fd.get(), buffer, sizeof buffer, 0);
    if (n > 0) {
      c.in.insert(c.in.end(), buffer, buffer + n);
      if (static_cast<size_t>(n) < sizeof buffer) break;
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n < 0 && errno == EINTR) continue;
    c.dead = true;  // EOF or error
    return;
  }
  process(c);
}

void TCPStoreServer::State::process(Conn& c) {
  size_t pos = 0;
  while (!c.dead && !c.waiter && !c.closing && c.in.size() - pos >= 4) {
    uint32_t len;
    std::memcpy(&len, c.in.data() + pos, 4);
    if (len == 0 || len > wire::kMaxFrame || (!c.authed && len > kMaxAuthFrame)) {
      c.dead = true;
      break;
    }
    if (c.in.size() - pos - 4 < len) break;
    wire::Reader r(c.in.data() + pos + 4, len);
    try {
      handle(c, r);
    } catch (const wire::Malformed&) {
      c.dead = true;
    }
    pos += 4 + len;
  }
  c.in.erase(c.in.begin(), c.in.begin() + static_cast<std::ptrdiff_t>(std::min(pos, c.in.size())));
}

void TCPStoreServer::State::handle(Conn& c, wire::Reader& r) {
  auto op = static_cast<Op>(r.u8());
  if (!c.authed) {
    if (op != Op::kAuth) throw wire::Malformed{};
    std::string presented = r.str();
    r.end();
    if (!same_token(presented, token)) {
      c.closing = true;
      reply(c, wire::Writer(Status::kError).str("TCPStore: wrong token, connection refused").frame());
    } else {
      c.authed = true;
      reply(c, wire::Writer(Status::kOk).frame());
    }
    return;
  }
  switch (op) {
    case Op::kSet: {
      std::string key = r.str(), value = r.str();
      r.end();
      kv[key] = std::move(value);
      reply(c, wire::Writer(Status::kOk).frame());
      notify(key);
      return;
    }
    case Op::kGet:
    case Op::kWait: {
      std::vector<std::string> keys;
      if (op == Op::kGet) keys.push_back(r.str());
      else keys = r.keys();
      int64_t timeout_ms = std::clamp<int64_t>(r.i64(), 0, kMaxWaitMs);
      r.end();
      c.waiter = Waiter{op, std::move(keys), Clock::now() + std::chrono::milliseconds(timeout_ms)};
      try_finish(c);
      return;
    }
    case Op::kAdd: {
      std::string key = r.str();
      int64_t delta = r.i64();
      r.end();
      int64_t value = 0;
      auto it = kv.find(key);
      if (it != kv.end()) {
        char* end = nullptr;
        errno = 0;
        long long parsed = std::strtoll(it->second.c_str(), &end, 10);
        if (it->second.empty() || errno != 0 || *end != '\0') {
          reply(c, wire::Writer(Status::kError)
                       .str(fmt::format("add: the value of key '{}' is not an integer", key))
                       .frame());
          return;
        }
        value = parsed;
      }
      value = static_cast<int64_t>(static_cast<uint64_t>(value) + static_cast<uint64_t>(delta));
      kv[key] = std::to_string(value);
      reply(c, wire::Writer(Status::kOk).i64(value).frame());
      notify(key);
      return;
    }
    case Op::kCompareSet: {
      std::string key = r.str(), expected = r.str(), desired = r.str();
      r.end();
      auto it = kv.find(key);
      bool matches = it == kv.end() ? expected.empty() : it->second == expected;
      if (matches) kv[key] = desired;
      auto now = kv.find(key);
      reply(c, wire::Writer(Status::kOk).str(now == kv.end() ? std::string() : now->second).frame());
      if (matches) notify(key);
      return;
    }
    case Op::kCheck: {
      auto keys = r.keys();
      r.end();
      reply(c, wire::Writer(Status::kOk).u8(missing(keys).empty() ? 1 : 0).frame());
      return;
    }
    case Op::kDelete: {
      std::string key = r.str();
      r.end();
      bool existed = kv.erase(key) > 0;
      reply(c, wire::Writer(Status::kOk).u8(existed ? 1 : 0).frame());
      return;
    }
    case Op::kNumKeys: {
      r.end();
      reply(c, wire::Writer(Status::kOk).i64(static_cast<int64_t>(kv.size())).frame());
      return;
    }
    default: throw wire::Malformed{};
  }
}

std::vector<std::string> TCPStoreServer::State::missing(const std::vector<std::string>& keys) const {
  std::vector<std::string> absent;
  for (const auto& k : keys)
    if (!kv.count(k)) absent.push_back(k);
  return absent;
}

bool TCPStoreServer::State::try_finish(Conn& c) {
  const auto& keys = c.waiter->keys;
  if (!missing(keys).empty()) return false;
  wire::Writer w(Status::kOk);
  if (c.waiter->op == Op::kGet) w.str(kv.at(keys[0]));
  answer(c, w.frame());
  return true;
}

void TCPStoreServer::State::notify(const std::string& key) {
  for (auto& [id, c] : conns) {
    if (!c.waiter || c.dead) continue;
    const auto& keys = c.waiter->keys;
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) continue;
    if (try_finish(c)) resume.push_back(id);
  }
}

void TCPStoreServer::State::expire(Clock::time_point now) {
  for (auto& [id, c] : conns) {
    if (!c.authed && now >= c.auth_deadline) c.dead = true;
    if (!c.waiter || c.dead || now < c.waiter->deadline) continue;
    answer(c, wire::Writer(Status::kTimeout).keys(missing(c.waiter->keys)).frame());
    process(c);
  }
}

void TCPStoreServer::State::answer(Conn& c, const std::vector<uint8_t>& frame) {
  c.waiter.reset();
  reply(c, frame);
}

void TCPStoreServer::State::reply(Conn& c, const std::vector<uint8_t>& frame) {
  c.out.insert(c.out.end(), frame.begin(), frame.end());
  if (c.out.size() - c.out_pos > kMaxPendingOutput) {
    c.dead = true;  // a client that never reads its replies
    return;
  }
  flush(c);
}

void TCPStoreServer::State::flush(Conn& c) {
  while (c.out_pos < c.out.size()) {
    ssize_t n = ::send(c.fd.get(), c.out.data() + c.out_pos, c.out.size() - c.out_pos, MSG_NOSIGNAL);
    if (n > 0) {
      c.out_pos += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    c.dead = true;
    return;
  }
  c.out.clear();
  c.out_pos = 0;
  if (c.closing) c.dead = true;
}

}  // namespace brisk::dist
