#pragma once
// A TCP port nobody listens on at the moment, for MASTER_PORT when none was given.
#include <string>

namespace brisk::launch {

// Binds port 0 on `address` (an IPv4 or IPv6 literal), reads the port the kernel chose and
// closes the socket. Another program could take the port before rank 0's store binds it;
// the window is short and torchrun accepts the same race.
int free_port(const std::string& address);

}  // namespace brisk::launch
