#include "tests/distributed/gloo/gloo_thread_ranks.h"

#include <memory>

#include "distributed/store/prefix_store.h"
#include "distributed/store/tcp_store.h"
#include "tests/thread_checks.h"

namespace brisk::testing {

void run_store_ranks(int size, const std::function<void(int rank, std::shared_ptr<dist::Store> store)>& body) {
  dist::TCPStoreOptions o;
  o.port = 0;
  o.is_master = true;
  o.timeout = std::chrono::seconds(10);
  auto master = std::make_shared<dist::TCPStore>("127.0.0.1", o);
  o.is_master = false;
  o.port = master->port();
  testing::run_threads(size, "rank", [&](int r) {
    std::shared_ptr<dist::Store> store =
        r == 0 ? std::static_pointer_cast<dist::Store>(master) : std::make_shared<dist::TCPStore>("127.0.0.1", o);
    body(r, std::make_shared<dist::PrefixStore>("test", store));
  });
}

void run_gloo_ranks(int size, const std::function<void(dist::ProcessGroupGloo&)>& body,
                    dist::ProcessGroupOptions options) {
  run_store_ranks(size, [&](int rank, std::shared_ptr<dist::Store> store) {
    dist::ProcessGroupGloo group(std::move(store), rank, size, options, "127.0.0.1");
    body(group);
  });
}

}  // namespace brisk::testing
