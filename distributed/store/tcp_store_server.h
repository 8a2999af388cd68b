#pragma once
// The server half of TCPStore: one thread polling every connection, hosted by rank 0.
//
// It listens on exactly the address `host` resolves to (loopback stays loopback). A client
// must first present the job's token (compared in constant time); a wrong token, a frame
// that does not parse, an oversized length or a connection that does not authenticate
// within 30 s is dropped, and only that connection. Blocking get/wait are answered by the
// server when the keys appear or the request's own timeout passes, so no thread ever
// blocks on one client.
#include <cstdint>
#include <memory>
#include <string>

namespace brisk::dist {

class TCPStoreServer {
 public:
  // port 0 picks a free port (see port()).
  TCPStoreServer(const std::string& host, uint16_t port, std::string token);
  ~TCPStoreServer();
  TCPStoreServer(const TCPStoreServer&) = delete;
  TCPStoreServer& operator=(const TCPStoreServer&) = delete;

  uint16_t port() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace brisk::dist
