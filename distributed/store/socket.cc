#include "distributed/store/socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tensor/error.h"

namespace brisk::dist::net {

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    reset();
    fd_ = other.release();
  }
  return *this;
}

int Fd::release() {
  int fd = fd_;
  fd_ = -1;
  return fd;
}

void Fd::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::string Address::str() const {
  char host[INET6_ADDRSTRLEN] = "?";
  const auto* sa = reinterpret_cast<const sockaddr*>(&storage);
  if (sa->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&storage);
    inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
    return fmt::format("{}:{}", host, ntohs(in->sin_port));
  }
  const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&storage);
  inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
  return fmt::format("[{}]:{}", host, ntohs(in6->sin6_port));
}

uint16_t port_of(const Address& address) {
  const auto* sa = reinterpret_cast<const sockaddr*>(&address.storage);
  if (sa->sa_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(sa)->sin_port);
  return ntohs(reinterpret_cast<const sockaddr_in6*>(sa)->sin6_port);
}

Address resolve(const std::string& host, uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* results = nullptr;
  std::string service = std::to_string(port);
  int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &results);
  BRISK_CHECK(rc == 0, "cannot resolve host '{}': {}", host, gai_strerror(rc));
  const addrinfo* chosen = results;
  for (const addrinfo* it = results; it != nullptr; it = it->ai_next) {
    if (it->ai_family == AF_INET) {
      chosen = it;
      break;
    }
  }
  Address address;
  std::memcpy(&address.storage, chosen->ai_addr, chosen->ai_addrlen);
  address.length = chosen->ai_addrlen;
  freeaddrinfo(results);
  return address;
}

Fd listen_on(const std::string& host, uint16_t port, Address* bound) {
  Address address = resolve(host, port);
  Fd fd(::socket(address.storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  BRISK_CHECK(fd.valid(), "socket(): {}", std::strerror(errno));
  int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  BRISK_CHECK(::bind(fd.get(), reinterpret_cast<sockaddr*>(&address.storage), address.length) == 0,
              "cannot bind {} (host '{}'): {}", address.str(), host, std::strerror(errno));
  BRISK_CHECK(::listen(fd.get(), 1024) == 0, "listen on {}: {}", address.str(), std::strerror(errno));
  bound->length = sizeof bound->storage;
  ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&bound->storage), &bound->length);
  return fd;
}

Fd try_connect(const Address& address, std::string* error) {
  Fd fd(::socket(address.storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  BRISK_CHECK(fd.valid(), "socket(): {}", std::strerror(errno));
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address.storage), address.length) != 0) {
    *error = std::strerror(errno);
    return Fd();
  }
  int one = 1;
  ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

std::string local_address_towards(const std::string& host) {
  // A connected UDP socket sends nothing but makes the kernel pick the route.
  Address peer = resolve(host, 9);
  Fd fd(::socket(peer.storage.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  BRISK_CHECK(fd.valid(), "socket(): {}", std::strerror(errno));
  BRISK_CHECK(::connect(fd.get(), reinterpret_cast<const sockaddr*>(&peer.storage), peer.length) == 0,
              "no route to '{}': {}", host, std::strerror(errno));
  Address local;
  local.length = sizeof local.storage;
  ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&local.storage), &local.length);
  char text[INET6_ADDRSTRLEN] = "";
  if (local.storage.ss_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&local.storage)->sin_addr, text, sizeof text);
  } else {
    inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&local.storage)->sin6_addr, text, sizeof text);
  }
  return text;
}

void send_all(int fd, const void* data, size_t size, const std::string& what) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  while (size > 0) {
    ssize_t n = ::send(fd, bytes, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    BRISK_CHECK(n > 0, "{}: send failed: {}", what, std::strerror(errno));
    bytes += n;
    size -= static_cast<size_t>(n);
  }
}

void recv_all(int fd, void* data, size_t size, Clock::time_point deadline, const std::string& what) {
  auto* bytes = static_cast<uint8_t*>(data);
  while (size > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    BRISK_CHECK(left > 0, "{}: no reply before the deadline", what);
    pollfd p{fd, POLLIN, 0};
    int ready = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 1 << 30)));
    if (ready < 0 && errno == EINTR) continue;
    BRISK_CHECK(ready >= 0, "{}: poll failed: {}", what, std::strerror(errno));
    if (ready == 0) continue;
    ssize_t n = ::recv(fd, bytes, size, 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    BRISK_CHECK(n != 0, "{}: connection closed by the peer", what);
    BRISK_CHECK(n > 0, "{}: recv failed: {}", what, std::strerror(errno));
    bytes += n;
    size -= static_cast<size_t>(n);
  }
}

}  // namespace brisk::dist::net
