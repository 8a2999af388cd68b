#include "distributed/launch/free_port.h"

#include <arpa/inet.h>

#include "distributed/store/socket.h"
#include "tensor/error.h"

namespace brisk::launch {

int free_port(const std::string& address) {
  in6_addr parsed;
  BRISK_CHECK(inet_pton(AF_INET, address.c_str(), &parsed) == 1 || inet_pton(AF_INET6, address.c_str(), &parsed) == 1,
              "launch: --master-addr '{}' is not an IP address; pass --master-port to use a host name", address);
  dist::net::Address bound;
  try {
    dist::net::listen_on(address, 0, &bound);  // the socket closes at once
  } catch (const Error& error) {
    BRISK_FAIL("launch: cannot find a free port on {}: {}", address, error.what());
  }
  return dist::net::port_of(bound);
}

}  // namespace brisk::launch
