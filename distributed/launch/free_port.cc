#include "distributed/launch/free_port.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tensor/error.h"

namespace brisk::launch {

int free_port(const std::string& address) {
  sockaddr_storage storage{};
  socklen_t length = 0;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
  if (inet_pton(AF_INET, address.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    length = sizeof(sockaddr_in);
  } else if (inet_pton(AF_INET6, address.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    length = sizeof(sockaddr_in6);
  } else {
    BRISK_FAIL("launch: --master-addr '{}' is not an IP address; pass --master-port to use a host name", address);
  }
  int fd = socket(storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  BRISK_CHECK(fd >= 0, "launch: socket(): {}", std::strerror(errno));
  if (bind(fd, reinterpret_cast<sockaddr*>(&storage), length) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&storage), &length) != 0) {
    int error = errno;
    close(fd);
    BRISK_FAIL("launch: cannot find a free port on {}: {}", address, std::strerror(error));
  }
  close(fd);
  return ntohs(storage.ss_family == AF_INET ? v4->sin_port : v6->sin6_port);
}

}  // namespace brisk::launch
