// The pinned-memory cache's logic, on the CPU through FakeMemoryApi.
#include "cuda/host_caching_allocator.h"

#include <catch2/catch.hpp>

#include "tensor/error.h"
#include "tests/cuda/fake_memory_api.h"

using namespace brisk::cuda;
using brisk::cuda::testing::fake_stream;
using brisk::cuda::testing::FakeMemoryApi;
using brisk::cuda::testing::FakeState;
using Catch::Matchers::Contains;

namespace {

struct Fixture {
  std::shared_ptr<FakeState> host = std::make_shared<FakeState>();
  std::unique_ptr<HostCachingAllocator> allocator =
      std::make_unique<HostCachingAllocator>(std::make_unique<FakeMemoryApi>(host));
  StreamHandle stream = fake_stream(0x10);
};

}  // namespace

TEST_CASE("pinned blocks are sized in powers of two from 512 bytes") {
  CHECK(host_block_size(0) == 512);
  CHECK(host_block_size(512) == 512);
  CHECK(host_block_size(513) == 1024);
  CHECK(host_block_size(size_t{1} << 20) == size_t{1} << 20);
  CHECK(host_block_size((size_t{1} << 20) + 1) == size_t{2} << 20);
}

TEST_CASE("a freed pinned block is reused for any request of its size") {
  Fixture f;
  void* a = f.allocator->malloc(1000);
  CHECK(f.host->live.at(a) == 1024);
  f.allocator->free(a);
  CHECK(f.allocator->malloc(600) == a);
  CHECK(f.allocator->malloc(600) != a);
  CHECK(f.host->mallocs == 2);
  brisk::MemoryStats stats = f.allocator->stats();
  CHECK(stats.allocated_bytes == 2048);
  CHECK(stats.reserved_bytes == 2048);
  CHECK(stats.num_allocs == 3);
  CHECK(stats.num_frees == 1);
  CHECK(f.allocator->malloc(0) == nullptr);
}

TEST_CASE("contains() knows every address inside a live pinned block") {
  Fixture f;
  char* a = static_cast<char*>(f.allocator->malloc(4096));
  CHECK(f.allocator->contains(a));
  CHECK(f.allocator->contains(a + 4095));
  CHECK_FALSE(f.allocator->contains(a + 4096));
  CHECK_FALSE(f.allocator->contains(a - 1));
  f.allocator->free(a);
  CHECK_FALSE(f.allocator->contains(a));
}

TEST_CASE("a pinned block used by an asynchronous copy is reused only after the copy") {
  Fixture f;
  char* a = static_cast<char*>(f.allocator->malloc(4096));
  CHECK(f.allocator->record_event(a + 100, f.stream));
  f.allocator->free(a);
  void* b = f.allocator->malloc(4096);
  CHECK(b != a);
  f.allocator->free(b);

  f.host->complete(f.stream);
  void* c = f.allocator->malloc(4096);
  void* d = f.allocator->malloc(4096);
  CHECK((c == a || d == a));
  CHECK(f.host->mallocs == 2);
  CHECK(f.host->events.empty());
}

TEST_CASE("a copy that finished before the free does not delay reuse") {
  Fixture f;
  void* a = f.allocator->malloc(4096);
  f.allocator->record_event(a, f.stream);
  f.host->complete(f.stream);
  f.allocator->free(a);
  CHECK(f.host->events.empty());
  CHECK(f.allocator->malloc(4096) == a);
}

TEST_CASE("record_event ignores memory that is not from the pinned cache") {
  Fixture f;
  int local = 0;
  CHECK_FALSE(f.allocator->record_event(&local, f.stream));
  CHECK(f.host->events.empty());
  CHECK_THROWS_WITH(f.allocator->free(&local), Contains("did not allocate"));
}

TEST_CASE("empty_cache frees cached pinned blocks, waiting for pending copies") {
  Fixture f;
  void* live = f.allocator->malloc(512);
  void* cached = f.allocator->malloc(2048);
  void* pending = f.allocator->malloc(8192);
  f.allocator->record_event(pending, f.stream);
  f.allocator->free(cached);
  f.allocator->free(pending);
  f.allocator->empty_cache();
  CHECK(f.host->live.size() == 1);
  CHECK(f.host->live.count(live) == 1);
  CHECK(f.host->events.empty());
  brisk::MemoryStats stats = f.allocator->stats();
  CHECK(stats.reserved_bytes == 512);
  CHECK(stats.peak_reserved_bytes == 512 + 2048 + 8192);
  CHECK(stats.num_device_frees == 2);
}

TEST_CASE("out of pinned memory: cache emptied and retried, then an error with the numbers") {
  Fixture f;
  f.host->capacity = 5 * 1024;
  f.allocator->free(f.allocator->malloc(2048));
  void* a = f.allocator->malloc(3000);  // 4 KiB: fits once the cached 2 KiB are freed
  CHECK(a != nullptr);
  CHECK(f.host->frees == 1);
  try {
    f.allocator->malloc(2049);
    FAIL("expected an out-of-memory error");
  } catch (const brisk::Error& e) {
    std::string message = e.what();
    CHECK_THAT(message, Contains("out of pinned host memory: tried to allocate 2.00 KiB (a 4.00 KiB block)"));
    CHECK_THAT(message, Contains("1.00 KiB free of 5.00 KiB total"));
    CHECK_THAT(message, Contains("holds 4.00 KiB"));
  }
  CHECK(f.allocator->stats().num_ooms == 1);
}
