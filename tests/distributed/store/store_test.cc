// TCPStore, FileStore and PrefixStore in one process: every operation, threads, timeouts,
// the token check and hostile input against the server.
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <random>
#include <thread>

#include "distributed/store/file_store.h"
#include "distributed/store/prefix_store.h"
#include "distributed/store/socket.h"
#include "distributed/store/store_wire.h"
#include "distributed/store/tcp_store.h"
#include "tensor/error.h"

using namespace brisk;
using namespace brisk::dist;
using namespace std::chrono_literals;

namespace {

Bytes bytes(const std::string& s) { return Bytes(s.begin(), s.end()); }

std::shared_ptr<TCPStore> master(const std::string& token = "c0ffee", std::chrono::milliseconds timeout = 5s) {
  TCPStoreOptions o;
  o.port = 0;
  o.is_master = true;
  o.timeout = timeout;
  o.token = token;
  return std::make_shared<TCPStore>("127.0.0.1", o);
}

std::shared_ptr<TCPStore> client(uint16_t port, const std::string& token = "c0ffee",
                                 std::chrono::milliseconds timeout = 5s) {
  TCPStoreOptions o;
  o.port = port;
  o.timeout = timeout;
  o.token = token;
  return std::make_shared<TCPStore>("127.0.0.1", o);
}

std::string temp_path(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string path = std::string(dir ? dir : "/tmp") + "/" + name + std::to_string(::getpid());
  ::unlink(path.c_str());
  return path;
}

// The operations every Store must support, checked through two handles on one store.
void check_store_ops(Store& a, Store& b) {
  a.set("k", bytes("v1"));
  REQUIRE(b.get("k") == bytes("v1"));
  REQUIRE(b.get_string("k") == "v1");
  b.set("k", std::string("v2"));
  REQUIRE(a.get_string("k") == "v2");

  REQUIRE(a.add("counter", 5) == 5);
  REQUIRE(b.add("counter", -2) == 3);
  REQUIRE(a.get_string("counter") == "3");  // kept as decimal text, as in PyTorch
  a.set("text", std::string("abc"));
  REQUIRE_THROWS_WITH(a.add("text", 1), Catch::Contains("not an integer"));

  REQUIRE(a.compare_set("cas", Bytes(), bytes("first")) == bytes("first"));     // absent + empty expected
  REQUIRE(b.compare_set("cas", bytes("wrong"), bytes("x")) == bytes("first"));  // mismatch: unchanged
  REQUIRE(b.compare_set("cas", bytes("first"), bytes("second")) == bytes("second"));
  REQUIRE(a.compare_set("absent", bytes("x"), bytes("y")).empty());
  REQUIRE_FALSE(a.check({"absent"}));

  REQUIRE(a.check({"k", "counter"}));
  REQUIRE_FALSE(a.check({"k", "nope"}));
  int64_t n = a.num_keys();
  REQUIRE(n == 4);  // k, counter, text, cas
  REQUIRE(b.delete_key("text"));
  REQUIRE_FALSE(b.delete_key("text"));
  REQUIRE(a.num_keys() == n - 1);
  REQUIRE_FALSE(a.check({"text"}));

  a.set("empty", Bytes());
  REQUIRE(b.get("empty").empty());
  Bytes binary(3000);
  for (size_t i = 0; i < binary.size(); ++i) binary[i] = static_cast<uint8_t>(i * 7);
  a.set("binary", binary);
  REQUIRE(b.get("binary") == binary);

  // A blocking get is released by another thread's set.
  std::thread setter([&] {
    std::this_thread::sleep_for(50ms);
    b.set("late", std::string("here"));
  });
  REQUIRE(a.get_string("late") == "here");
  setter.join();
  std::thread setter2([&] {
    std::this_thread::sleep_for(50ms);
    b.set("w1", std::string("1"));
    b.add("w2", 1);
  });
  a.wait({"w1", "w2"}, 3s);
  setter2.join();

  // A wait that times out names the missing keys (and only those).
  auto start = std::chrono::steady_clock::now();
  try {
    a.wait({"w1", "missing_a", "missing_b"}, 200ms);
    FAIL("wait did not time out");
  } catch (const Error& e) {
    std::string what = e.what();
    REQUIRE_THAT(what, Catch::Contains("missing_a") && Catch::Contains("missing_b") && Catch::Contains("200 ms"));
  }
  REQUIRE(std::chrono::steady_clock::now() - start < 3s);
}

}  // namespace

TEST_CASE("TCPStore: every operation between a master and a client") {
  auto server = master();
  auto other = client(server->port());
  check_store_ops(*server, *other);
  // get times out with the store timeout, naming the key.
  auto quick = client(server->port(), "c0ffee", 150ms);
  REQUIRE_THROWS_WITH(quick->get("never"), Catch::Contains("never") && Catch::Contains("timed out"));
  // The connection that timed out stays usable.
  REQUIRE(quick->get_string("k") == "v2");
}

TEST_CASE("FileStore: every operation between two handles on one file") {
  std::string path = temp_path("filestore");
  FileStore a(path, 5s), b(path, 5s);
  check_store_ops(a, b);
  FileStore quick(path, 100ms);
  REQUIRE_THROWS_WITH(quick.get("never"), Catch::Contains("never") && Catch::Contains(path));
  ::unlink(path.c_str());
}

TEST_CASE("PrefixStore: keys live under the prefix and groups do not collide") {
  auto server = master();
  auto g1 = std::make_shared<PrefixStore>("g1", server);
  auto g2 = std::make_shared<PrefixStore>("g2", client(server->port()));
  PrefixStore g1_again("g1", client(server->port()));
  check_store_ops(*g1, g1_again);
  g2->set("k", std::string("other"));
  REQUIRE(g1->get_string("k") == "v2");
  REQUIRE(g2->get_string("k") == "other");
  REQUIRE(server->get_string("g1/k") == "v2");
  REQUIRE(server->get_string("g2/k") == "other");
  try {
    g2->wait({"missing"}, 100ms);
    FAIL("wait did not time out");
  } catch (const Error& e) {
    REQUIRE_THAT(e.what(), Catch::Contains("g2/missing"));
  }
}

TEST_CASE("TCPStore: concurrent adds and blocking gets from many threads") {
  auto server = master();
  constexpr int kThreads = 8, kAdds = 200;
  std::vector<std::thread> threads;
  std::atomic<int> seen{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto mine = t % 2 ? client(server->port()) : server;  // shared handle and own handles
      for (int i = 0; i < kAdds; ++i) mine->add("sum", 1);
      mine->set("done/" + std::to_string(t), std::string("1"));
      // Every thread blocks until all are done: needs the server to answer others meanwhile.
      for (int u = 0; u < kThreads; ++u) mine->get("done/" + std::to_string(u));
      seen++;
    });
  }
  for (auto& th : threads) th.join();
  REQUIRE(seen == kThreads);
  REQUIRE(server->add("sum", 0) == kThreads * kAdds);
}

TEST_CASE("TCPStore: a client with the wrong token is refused") {
  auto server = master("right-token");
  REQUIRE_THROWS_WITH(client(server->port(), "wrong-token"), Catch::Contains("token"));
  REQUIRE_THROWS_WITH(client(server->port(), ""), Catch::Contains("token"));
  REQUIRE(client(server->port(), "right-token")->add("ok", 1) == 1);
}

namespace {

// Sends raw bytes on a fresh connection and reports whether the server closed it.
bool server_drops(uint16_t port, const std::vector<uint8_t>& raw) {
  std::string error;
  net::Fd fd = net::try_connect(net::resolve("127.0.0.1", port), &error);
  REQUIRE(fd.valid());
  if (!raw.empty()) net::send_all(fd.get(), raw.data(), raw.size(), "test");
  try {
    uint8_t buf[256];
    for (;;) net::recv_all(fd.get(), buf, 1, net::Clock::now() + 2s, "test");
  } catch (const Error& e) {
    return std::string(e.what()).find("closed") != std::string::npos;
  }
}

std::vector<uint8_t> frame(std::initializer_list<uint8_t> payload) {
  std::vector<uint8_t> out(4);
  uint32_t len = static_cast<uint32_t>(payload.size());
  std::memcpy(out.data(), &len, 4);
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

}  // namespace

TEST_CASE("TCPStore: malformed and hostile messages drop only that connection") {
  auto server = master("tok");
  server->set("alive", std::string("yes"));
  uint16_t port = server->port();

  SECTION("requests before the token") {
    wire::Writer w;
    w.u8(static_cast<uint8_t>(wire::Op::kSet)).str("evil").str("x");
    REQUIRE(server_drops(port, w.frame()));
    REQUIRE_FALSE(server->check({"evil"}));
  }
  SECTION("oversized and zero lengths") {
    REQUIRE(server_drops(port, {0xff, 0xff, 0xff, 0xff}));
    REQUIRE(server_drops(port, {0, 0, 0, 0}));
    REQUIRE(server_drops(port, {0x00, 0x00, 0x10, 0x00, 1}));  // 1 MiB token frame before auth
  }
  SECTION("field lengths beyond the frame, after a valid token") {
    wire::Writer auth;
    auth.u8(static_cast<uint8_t>(wire::Op::kAuth)).str("tok");
    auto raw = auth.frame();
    auto bad = frame({static_cast<uint8_t>(wire::Op::kSet), 0xff, 0xff, 0xff, 0x7f, 'a'});
    raw.insert(raw.end(), bad.begin(), bad.end());
    REQUIRE(server_drops(port, raw));
    auto unknown = auth.frame();
    auto op = frame({200});
    unknown.insert(unknown.end(), op.begin(), op.end());
    REQUIRE(server_drops(port, unknown));
    auto trailing = auth.frame();
    auto extra = frame({static_cast<uint8_t>(wire::Op::kNumKeys), 0});
    trailing.insert(trailing.end(), extra.begin(), extra.end());
    REQUIRE(server_drops(port, trailing));
  }
  SECTION("random garbage") {
    std::mt19937 rng(1234);
    for (int i = 0; i < 200; ++i) {
      std::vector<uint8_t> raw(1 + rng() % 64);
      for (auto& b : raw) b = static_cast<uint8_t>(rng());
      // Either dropped or left waiting for more bytes; the server must survive both.
      std::string error;
      net::Fd fd = net::try_connect(net::resolve("127.0.0.1", port), &error);
      REQUIRE(fd.valid());
      net::send_all(fd.get(), raw.data(), raw.size(), "garbage");
    }
  }
  SECTION("random frames after a valid token") {
    std::mt19937 rng(99);
    wire::Writer auth;
    auth.u8(static_cast<uint8_t>(wire::Op::kAuth)).str("tok");
    for (int i = 0; i < 300; ++i) {
      std::vector<uint8_t> raw = auth.frame();
      uint32_t len = 1 + rng() % 40;
      for (int b = 0; b < 4; ++b) raw.push_back(static_cast<uint8_t>(len >> (8 * b)));
      raw.push_back(static_cast<uint8_t>(1 + rng() % 10));  // mostly real opcodes
      for (uint32_t b = 1; b < len; ++b) raw.push_back(static_cast<uint8_t>(rng()));
      std::string error;
      net::Fd fd = net::try_connect(net::resolve("127.0.0.1", port), &error);
      REQUIRE(fd.valid());
      net::send_all(fd.get(), raw.data(), raw.size(), "garbage");
    }
  }
  SECTION("half a frame, then hang up") {
    std::string error;
    net::Fd fd = net::try_connect(net::resolve("127.0.0.1", port), &error);
    std::vector<uint8_t> half = {100, 0, 0, 0, 1, 2};
    net::send_all(fd.get(), half.data(), half.size(), "half");
  }
  // The server still serves honest clients.
  REQUIRE(server->get_string("alive") == "yes");
  REQUIRE(client(port, "tok")->add("after", 1) == 1);
}

TEST_CASE("TCPStore: a server on 127.0.0.1 is not reachable through another interface") {
  auto server = master();
  std::string other;
  ifaddrs* list = nullptr;
  REQUIRE(getifaddrs(&list) == 0);
  for (ifaddrs* it = list; it != nullptr; it = it->ifa_next) {
    if (it->ifa_addr == nullptr || it->ifa_addr->sa_family != AF_INET) continue;
    char text[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(it->ifa_addr)->sin_addr, text, sizeof text);
    if (std::string(text).rfind("127.", 0) != 0) {
      other = text;
      break;
    }
  }
  freeifaddrs(list);
  if (other.empty()) {
    WARN("no non-loopback IPv4 interface on this machine: reachability check skipped");
    return;
  }
  std::string error;
  net::Fd fd = net::try_connect(net::resolve(other, server->port()), &error);
  INFO("connecting through " << other);
  REQUIRE_FALSE(fd.valid());
  REQUIRE(server->num_keys() == 0);
}

TEST_CASE("TCPStore: clients wait for a server that starts late, and give up at the timeout") {
  // Find a free port, then start the server on it after the client began connecting.
  uint16_t port;
  {
    net::Address bound;
    net::Fd probe = net::listen_on("127.0.0.1", 0, &bound);
    port = net::port_of(bound);
  }
  std::shared_ptr<TCPStore> late;
  std::thread starter([&] {
    std::this_thread::sleep_for(300ms);
    TCPStoreOptions o;
    o.port = port;
    o.is_master = true;
    o.token = "c0ffee";
    late = std::make_shared<TCPStore>("127.0.0.1", o);
  });
  auto early = client(port);
  starter.join();
  early->set("x", std::string("1"));
  REQUIRE(late->get_string("x") == "1");

  late.reset();
  early.reset();
  auto start = std::chrono::steady_clock::now();
  REQUIRE_THROWS_WITH(client(port, "c0ffee", 300ms), Catch::Contains("cannot connect"));
  REQUIRE(std::chrono::steady_clock::now() - start < 3s);
}

TEST_CASE("TCPStore: a client blocked in get fails promptly when the server goes away") {
  auto server = master();
  auto waiting = client(server->port(), "c0ffee", 20s);
  std::thread stopper([&] {
    std::this_thread::sleep_for(200ms);
    server.reset();
  });
  auto start = std::chrono::steady_clock::now();
  REQUIRE_THROWS_WITH(waiting->get("never"), Catch::Contains("closed by the peer"));
  REQUIRE(std::chrono::steady_clock::now() - start < 5s);
  stopper.join();
}
