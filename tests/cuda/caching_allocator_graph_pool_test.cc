// The caching allocator's graph pools (cuda/caching_allocator.h), through FakeMemoryApi: what
// a capture allocates comes from the graph's private pool; blocks of that pool, freed during or
// after the capture, go back to it and never to eager work; the pool's segments go back to
// the device when its last graph releases it and no tensor refers to them.
#include <catch2/catch.hpp>

#include "cuda/caching_allocator.h"
#include "tests/cuda/fake_memory_api.h"

using namespace brisk::cuda;
using brisk::cuda::testing::fake_stream;
using brisk::cuda::testing::FakeMemoryApi;
using brisk::cuda::testing::FakeState;
using Catch::Matchers::Contains;

namespace {

constexpr size_t kMiB = 1024 * 1024;

struct Fixture {
  std::shared_ptr<FakeState> device = std::make_shared<FakeState>();
  DeviceCachingAllocator allocator{0, std::make_unique<FakeMemoryApi>(device)};
  StreamRef eager{fake_stream(0x10), 1};
  StreamRef capture{fake_stream(0x20), 2};
};

constexpr uint64_t kPool = 7;

}  // namespace

TEST_CASE("a capture allocates from the graph's private pool, eager work from the general pools") {
  Fixture f;
  void* cached = f.allocator.malloc(4096, f.capture);  // a general block of the capture stream
  f.allocator.free(cached);
  f.allocator.begin_allocate_to_pool(kPool, f.capture);
  void* in_graph = f.allocator.malloc(4096, f.capture);
  CHECK(in_graph != cached);  // the cached general block is not used
  CHECK(f.allocator.pool_reserved_bytes(kPool) == 2 * kMiB);
  void* eager = f.allocator.malloc(4096, f.eager);  // another stream, meanwhile: general
  CHECK(f.allocator.pool_reserved_bytes(kPool) == 2 * kMiB);
  f.allocator.end_allocate_to_pool(kPool);
  void* after = f.allocator.malloc(4096, f.capture);
  CHECK(after == cached);  // after the capture: general again
  f.allocator.free(eager);
  f.allocator.free(after);
  f.allocator.free(in_graph);
  f.allocator.release_pool(kPool);
}

TEST_CASE("blocks freed during a capture are reused by the same capture only") {
  Fixture f;
  f.allocator.begin_allocate_to_pool(kPool, f.capture);
  void* temporary = f.allocator.malloc(4096, f.capture);
  f.allocator.free(temporary);
  void* next = f.allocator.malloc(4096, f.capture);
  CHECK(next == temporary);  // the graph orders its own uses of the pool
  f.allocator.end_allocate_to_pool(kPool);
  f.allocator.free(next);
  // Freed after the capture: back to the pool, never to eager work on any stream.
  for (const StreamRef& stream : {f.capture, f.eager}) {
    void* eager = f.allocator.malloc(4096, stream);
    CHECK(eager != temporary);
    f.allocator.free(eager);
  }
  CHECK(f.device->mallocs == 3);  // the pool's segment and one general segment per stream
  f.allocator.empty_cache();      // releases the general segments, not the graph's
  CHECK(f.allocator.pool_reserved_bytes(kPool) == 2 * kMiB);
  CHECK(f.device->live.size() == 1);
  f.allocator.release_pool(kPool);
  CHECK(f.device->live.empty());
  CHECK(f.allocator.stats().reserved_bytes == 0);
}

TEST_CASE("a released pool's segments go back to the device when their last block is freed") {
  Fixture f;
  f.allocator.begin_allocate_to_pool(kPool, f.capture);
  void* output = f.allocator.malloc(4096, f.capture);  // a graph output the user keeps
  void* large = f.allocator.malloc(12 * kMiB, f.capture);
  f.allocator.end_allocate_to_pool(kPool);
  f.allocator.free(large);
  f.allocator.release_pool(kPool);    // the graph is reset
  CHECK(f.device->live.size() == 1);  // the large segment went back; the output's stays
  CHECK(f.allocator.pool_reserved_bytes(kPool) == 2 * kMiB);
  f.allocator.free(output);
  CHECK(f.device->live.empty());
  CHECK(f.allocator.pool_reserved_bytes(kPool) == 0);
  CHECK(f.allocator.stats().reserved_bytes == 0);
}

TEST_CASE("graphs that share a pool keep it until the last one releases it") {
  Fixture f;
  f.allocator.begin_allocate_to_pool(kPool, f.capture);
  void* first_temporary = f.allocator.malloc(4096, f.capture);
  f.allocator.free(first_temporary);
  f.allocator.end_allocate_to_pool(kPool);
  f.allocator.begin_allocate_to_pool(kPool, f.capture);  // the second graph, same pool
  void* second = f.allocator.malloc(4096, f.capture);
  CHECK(second == first_temporary);  // the shared pool's free memory
  f.allocator.end_allocate_to_pool(kPool);
  f.allocator.free(second);
  f.allocator.release_pool(kPool);
  CHECK(f.allocator.pool_reserved_bytes(kPool) == 2 * kMiB);  // the other graph still replays
  f.allocator.release_pool(kPool);
  CHECK(f.allocator.pool_reserved_bytes(kPool) == 0);
  CHECK_THROWS_WITH(f.allocator.release_pool(kPool), Contains("graph memory pool 7 of cuda:0 has no user left"));
}

TEST_CASE("during a capture the allocator waits for nothing and frees nothing") {
  Fixture f;
  void* used_elsewhere = f.allocator.malloc(4096, f.eager);
  f.allocator.record_stream(used_elsewhere, f.capture);
  f.allocator.free(used_elsewhere);  // pending on an event of the capture stream
  f.allocator.begin_allocate_to_pool(kPool, f.capture);
  f.device->complete(f.capture.handle);
  size_t events = f.device->events.size();
  void* in_graph = f.allocator.malloc(4096, f.capture);
  CHECK(f.device->events.size() == events);  // no event was queried and destroyed
  CHECK_THROWS_WITH(f.allocator.empty_cache(), Contains("empty_cache on cuda:0 during graph capture"));
  CHECK_THROWS_WITH(f.allocator.begin_allocate_to_pool(8, f.capture), Contains("already allocates to a graph pool"));
  f.device->capacity = f.device->used;  // out of memory: no retry that would free
  CHECK_THROWS_WITH(f.allocator.malloc(4 * kMiB, f.capture), Contains("CUDA out of memory"));
  CHECK(f.device->frees == 0);
  f.allocator.end_allocate_to_pool(kPool);
  f.allocator.free(in_graph);
  f.allocator.release_pool(kPool);
}

TEST_CASE("a released pool's memory freed during another capture goes back to the device at that capture's end") {
  Fixture f;
  f.allocator.begin_allocate_to_pool(kPool, f.capture);
  void* old_gradient = f.allocator.malloc(4096, f.capture);
  void* old_temporary = f.allocator.malloc(12 * kMiB, f.capture);
  f.allocator.end_allocate_to_pool(kPool);
  constexpr uint64_t kNewPool = 8;
  f.allocator.begin_allocate_to_pool(kNewPool, f.capture);  // a recapture begins
  f.allocator.free(old_temporary);
  f.allocator.release_pool(kPool);  // the old graph is reset during it
  f.allocator.free(old_gradient);   // the new capture's zero_grad drops the old gradient
  CHECK(f.device->frees == 0);      // no cudaFree while a stream is captured
  CHECK(f.allocator.pool_reserved_bytes(kPool) == 2 * kMiB + 12 * kMiB);
  f.allocator.end_allocate_to_pool(kNewPool);
  CHECK(f.device->frees == 2);
  CHECK(f.allocator.pool_reserved_bytes(kPool) == 0);
  f.allocator.release_pool(kNewPool);
  CHECK(f.device->live.empty());
}
