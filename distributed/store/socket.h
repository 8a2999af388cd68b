#pragma once
// Small POSIX socket helpers shared by the TCP store and the Gloo device setup. Every
// failure throws a brisk::Error naming the address and the errno text.
#include <sys/socket.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace brisk::dist::net {

using Clock = std::chrono::steady_clock;

// An owned file descriptor, closed on destruction.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release();
  void reset();

 private:
  int fd_ = -1;
};

// A resolved socket address.
struct Address {
  sockaddr_storage storage{};
  socklen_t length = 0;
  std::string str() const;  // "127.0.0.1:29500", "[::1]:29500"
};

// Resolves host (name or numeric) and port; the first result wins, IPv4 preferred.
Address resolve(const std::string& host, uint16_t port);

// A listening TCP socket bound to exactly host's address (not the wildcard), so it is
// reachable only through that interface. port 0 picks a free port.
Fd listen_on(const std::string& host, uint16_t port, Address* bound);
uint16_t port_of(const Address& address);

// Connects once; returns an invalid Fd (and sets *error) when the peer refuses.
Fd try_connect(const Address& address, std::string* error);

// The numeric address of the local interface the kernel routes to host through
// (loopback when host is this machine's loopback).
std::string local_address_towards(const std::string& host);

// Writes all bytes or throws (EPIPE is reported, not raised as a signal).
void send_all(int fd, const void* data, size_t size, const std::string& what);
// Reads exactly size bytes before deadline; throws naming `what` on EOF, error or timeout.
void recv_all(int fd, void* data, size_t size, Clock::time_point deadline, const std::string& what);

}  // namespace brisk::dist::net
