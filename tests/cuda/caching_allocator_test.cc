// The device caching allocator's logic, on the CPU through FakeMemoryApi.
#include "cuda/caching_allocator.h"

#include <catch2/catch.hpp>

#include "tensor/error.h"
#include "tensor/memory_stats.h"
#include "tests/cuda/fake_memory_api.h"

using namespace brisk::cuda;
using brisk::cuda::testing::fake_stream;
using brisk::cuda::testing::FakeMemoryApi;
using brisk::cuda::testing::FakeState;
using Catch::Matchers::Contains;

namespace {

constexpr size_t kKiB = 1024;
constexpr size_t kMiB = 1024 * 1024;

struct Fixture {
  std::shared_ptr<FakeState> device = std::make_shared<FakeState>();
  std::unique_ptr<DeviceCachingAllocator> allocator =
      std::make_unique<DeviceCachingAllocator>(0, std::make_unique<FakeMemoryApi>(device));
  StreamRef s1{fake_stream(0x10), 1};
  StreamRef s2{fake_stream(0x20), 2};
};

char* at(void* base, size_t offset) { return static_cast<char*>(base) + offset; }

}  // namespace

TEST_CASE("requests are rounded to 512 bytes and segments sized by pool") {
  CHECK(round_block_size(0) == 512);
  CHECK(round_block_size(1) == 512);
  CHECK(round_block_size(512) == 512);
  CHECK(round_block_size(513) == 1024);
  CHECK(round_block_size(1000 * kKiB + 1) == 1000 * kKiB + 512);

  CHECK(segment_size(512) == 2 * kMiB);
  CHECK(segment_size(kMiB) == 2 * kMiB);
  CHECK(segment_size(kMiB + 512) == 20 * kMiB);
  CHECK(segment_size(10 * kMiB - 512) == 20 * kMiB);
  CHECK(segment_size(10 * kMiB) == 10 * kMiB);
  CHECK(segment_size(11 * kMiB) == 12 * kMiB);
  CHECK(segment_size(100 * kMiB + 512) == 102 * kMiB);
}

TEST_CASE("small blocks are carved out of one 2 MiB segment") {
  Fixture f;
  void* a = f.allocator->malloc(1000, f.s1);
  void* b = f.allocator->malloc(100, f.s1);
  void* c = f.allocator->malloc(kMiB, f.s1);
  CHECK(f.device->mallocs == 1);
  CHECK(f.device->live.at(a) == 2 * kMiB);
  CHECK(b == at(a, 1024));
  CHECK(c == at(a, 1024 + 512));
  brisk::MemoryStats stats = f.allocator->stats();
  CHECK(stats.allocated_bytes == 1024 + 512 + kMiB);
  CHECK(stats.reserved_bytes == 2 * kMiB);
  CHECK(stats.num_allocs == 3);
  CHECK(stats.num_device_mallocs == 1);

  // The segment has 2 MiB - 1 MiB - 1.5 KiB left: a second 1 MiB request needs a new one.
  void* d = f.allocator->malloc(kMiB, f.s1);
  CHECK(f.device->mallocs == 2);
  CHECK(f.device->live.count(d) == 1);
}

TEST_CASE("large requests: 20 MiB segments below 10 MiB, else rounded to 2 MiB") {
  Fixture f;
  void* a = f.allocator->malloc(5 * kMiB, f.s1);
  void* b = f.allocator->malloc(3 * kMiB + 1, f.s1);
  CHECK(f.device->mallocs == 1);
  CHECK(f.device->live.at(a) == 20 * kMiB);
  CHECK(b == at(a, 5 * kMiB));

  // The 12 MiB left in the first segment are too small for 13 MiB: a 14 MiB segment, whose
  // last 1 MiB is not worth a block of its own in the large pool (no split).
  void* big = f.allocator->malloc(13 * kMiB, f.s1);
  CHECK(f.device->mallocs == 2);
  CHECK(f.device->live.at(big) == 14 * kMiB);
  CHECK(f.allocator->stats().allocated_bytes == 5 * kMiB + 3 * kMiB + 512 + 14 * kMiB);
  f.allocator->free(big);
  void* again = f.allocator->malloc(13 * kMiB + 300 * kKiB, f.s1);
  CHECK(again == big);
  CHECK(f.device->mallocs == 2);
}

TEST_CASE("a freed block is reused for the next request it fits") {
  Fixture f;
  void* a = f.allocator->malloc(4000, f.s1);
  f.allocator->free(a);
  void* b = f.allocator->malloc(3900, f.s1);
  CHECK(b == a);
  CHECK(f.device->mallocs == 1);

  // Best fit: of two free blocks the smallest that fits is taken. The live blocks between
  // them keep them from merging.
  void* big = f.allocator->malloc(64 * kKiB, f.s1);
  f.allocator->malloc(512, f.s1);
  void* small = f.allocator->malloc(8 * kKiB, f.s1);
  f.allocator->malloc(512, f.s1);
  f.allocator->free(big);
  f.allocator->free(small);
  CHECK(f.allocator->malloc(6 * kKiB, f.s1) == small);
  CHECK(f.allocator->malloc(16 * kKiB, f.s1) == big);
  CHECK(f.device->mallocs == 1);
}

TEST_CASE("freed neighbours coalesce, and a fully free segment goes back on empty_cache") {
  Fixture f;
  void* a = f.allocator->malloc(1024, f.s1);
  void* b = f.allocator->malloc(1024, f.s1);
  void* c = f.allocator->malloc(1024, f.s1);
  f.allocator->free(a);
  f.allocator->free(b);
  // a and b merged into one 2 KiB block at a's address.
  CHECK(f.allocator->malloc(2048, f.s1) == a);
  f.allocator->free(a);
  f.allocator->free(c);
  // a+b, c and the segment's free tail are one block again: the whole segment is returned.
  f.allocator->empty_cache();
  CHECK(f.device->frees == 1);
  CHECK(f.device->live.empty());
  brisk::MemoryStats stats = f.allocator->stats();
  CHECK(stats.reserved_bytes == 0);
  CHECK(stats.allocated_bytes == 0);
  CHECK(stats.num_device_frees == 1);
}

TEST_CASE("empty_cache keeps segments that still hold a live block") {
  Fixture f;
  void* live = f.allocator->malloc(512, f.s1);
  void* cached_small = f.allocator->malloc(512, f.s1);
  void* cached_large = f.allocator->malloc(30 * kMiB, f.s1);
  f.allocator->free(cached_small);
  f.allocator->free(cached_large);
  f.allocator->empty_cache();
  CHECK(f.device->live.size() == 1);
  CHECK(f.device->live.count(live) == 1);
  CHECK(f.allocator->stats().reserved_bytes == 2 * kMiB);
}

TEST_CASE("each stream has its own free blocks") {
  Fixture f;
  void* a = f.allocator->malloc(4096, f.s1);
  f.allocator->free(a);
  void* b = f.allocator->malloc(4096, f.s2);
  CHECK(b != a);
  CHECK(f.device->mallocs == 2);
  CHECK(f.allocator->malloc(4096, f.s1) == a);

  void* large = f.allocator->malloc(12 * kMiB, f.s1);
  f.allocator->free(large);
  CHECK(f.allocator->malloc(12 * kMiB, f.s2) != large);
  CHECK(f.device->mallocs == 4);
}

TEST_CASE("record_stream defers reuse until the other stream's work is done") {
  Fixture f;
  void* a = f.allocator->malloc(4096, f.s1);
  f.allocator->record_stream(a, f.s2);
  f.allocator->record_stream(a, f.s2);  // recorded once
  f.allocator->record_stream(a, f.s1);  // its own stream: nothing to wait for
  f.allocator->free(a);
  REQUIRE(f.device->events.size() == 1);
  CHECK(f.device->events.begin()->second.stream == f.s2.handle);
  CHECK(f.allocator->stats().allocated_bytes == 0);

  // s2 may still be reading `a`: a new request on s1 must not get it.
  void* b = f.allocator->malloc(4096, f.s1);
  CHECK(b != a);
  f.allocator->free(b);

  f.device->complete(f.s2.handle);
  void* c = f.allocator->malloc(4096, f.s1);
  CHECK(c == a);
  CHECK(f.device->events.empty());
}

TEST_CASE("empty_cache waits for pending frees before returning segments") {
  Fixture f;
  void* a = f.allocator->malloc(12 * kMiB, f.s1);
  f.allocator->record_stream(a, f.s2);
  f.allocator->free(a);
  f.allocator->empty_cache();
  CHECK(f.device->events.empty());
  CHECK(f.device->live.empty());
}

TEST_CASE("peak statistics follow allocations and reset to the current values") {
  Fixture f;
  void* a = f.allocator->malloc(10 * kKiB, f.s1);
  void* b = f.allocator->malloc(20 * kKiB, f.s1);
  f.allocator->free(b);
  brisk::MemoryStats stats = f.allocator->stats();
  CHECK(stats.allocated_bytes == 10 * kKiB);
  CHECK(stats.peak_allocated_bytes == 30 * kKiB);
  CHECK(stats.peak_reserved_bytes == 2 * kMiB);
  CHECK(stats.num_allocs == 2);
  CHECK(stats.num_frees == 1);

  f.allocator->reset_peak_stats();
  CHECK(f.allocator->stats().peak_allocated_bytes == 10 * kKiB);
  f.allocator->free(a);
  f.allocator->empty_cache();
  stats = f.allocator->stats();
  CHECK(stats.peak_allocated_bytes == 10 * kKiB);
  CHECK(stats.peak_reserved_bytes == 2 * kMiB);
  f.allocator->reset_peak_stats();
  CHECK(f.allocator->stats().peak_reserved_bytes == 0);
}

TEST_CASE("out of memory: the cache is emptied and the allocation retried once") {
  Fixture f;
  f.device->capacity = 40 * kMiB;
  f.allocator->free(f.allocator->malloc(5 * kMiB, f.s1));  // leaves a cached 20 MiB segment
  void* a = f.allocator->malloc(25 * kMiB, f.s1);          // 26 MiB: fits only without the cache
  CHECK(a != nullptr);
  CHECK(f.device->failed_mallocs == 1);
  CHECK(f.device->frees == 1);
  CHECK(f.allocator->stats().num_ooms == 0);
}

TEST_CASE("out of memory after the retry raises an error with the numbers and advice") {
  Fixture f;
  f.device->capacity = 40 * kMiB;
  f.allocator->malloc(25 * kMiB, f.s1);
  f.allocator->malloc(100, f.s1);
  REQUIRE_THROWS_AS(f.allocator->malloc(30 * kMiB, f.s1), brisk::Error);
  try {
    f.allocator->malloc(30 * kMiB, f.s1);
  } catch (const brisk::Error& e) {
    std::string message = e.what();
    CHECK_THAT(message, Contains("CUDA out of memory on cuda:0"));
    CHECK_THAT(message, Contains("tried to allocate 30.00 MiB"));
    CHECK_THAT(message, Contains("12.00 MiB free of 40.00 MiB total"));
    CHECK_THAT(message, Contains("26.00 MiB allocated to tensors (peak 26.00 MiB)"));
    CHECK_THAT(message, Contains("28.00 MiB reserved"));
    CHECK_THAT(message, Contains(brisk::out_of_memory_advice()));
  }
  CHECK(f.allocator->stats().num_ooms == 2);
  // The failure leaves the allocator usable.
  CHECK(f.allocator->malloc(kMiB, f.s1) != nullptr);
}

TEST_CASE("zero bytes, null frees and foreign pointers") {
  Fixture f;
  CHECK(f.allocator->malloc(0, f.s1) == nullptr);
  f.allocator->free(nullptr);
  CHECK(f.allocator->stats().num_allocs == 0);
  CHECK(f.device->mallocs == 0);

  int local = 0;
  CHECK_THROWS_WITH(f.allocator->free(&local), Contains("did not allocate"));
  CHECK_THROWS_WITH(f.allocator->record_stream(&local, f.s2), Contains("record_stream"));
}

TEST_CASE("destroying the allocator returns every segment to the device") {
  Fixture f;
  f.allocator->malloc(100, f.s1);
  f.allocator->free(f.allocator->malloc(12 * kMiB, f.s2));
  void* pending = f.allocator->malloc(5 * kMiB, f.s1);
  f.allocator->record_stream(pending, f.s2);
  f.allocator->free(pending);
  f.allocator.reset();
  CHECK(f.device->live.empty());
  CHECK(f.device->events.empty());
}

TEST_CASE("a block used on a stream that was destroyed since is freed without touching that stream") {
  Fixture f;
  void* p = f.allocator->malloc(1000, f.s1);
  f.allocator->record_stream(p, f.s2);
  // What cuda::Stream's destructor does: retire the stream, then destroy it. Its queued work
  // (which may still use p) goes on after that.
  f.allocator->retire_stream(f.s2);
  f.device->destroy_stream(f.s2.handle);
  CHECK_NOTHROW(f.allocator->free(p));
  CHECK(f.allocator->malloc(1000, f.s1) != p);  // the dead stream's last work may still use p
  f.device->complete(f.s2.handle);
  CHECK(f.allocator->malloc(1000, f.s1) == p);
  CHECK(f.device->events.empty());
}

TEST_CASE("retiring a stream touches only the blocks it used") {
  Fixture f;
  void* used = f.allocator->malloc(1000, f.s1);
  void* other = f.allocator->malloc(1000, f.s1);
  f.allocator->record_stream(used, f.s2);
  f.allocator->retire_stream(f.s2);
  CHECK(f.device->events.size() == 1);
  f.allocator->free(other);
  CHECK(f.allocator->malloc(1000, f.s1) == other);  // nothing to wait for
}

TEST_CASE("a new stream that gets a destroyed stream's handle does not get its blocks") {
  Fixture f;
  void* p = f.allocator->malloc(1000, f.s1);
  f.allocator->free(p);
  f.allocator->retire_stream(f.s1);
  f.device->destroy_stream(f.s1.handle);
  f.device->reuse_stream_handle(f.s1.handle);
  StreamRef reborn{f.s1.handle, 3};
  void* q = f.allocator->malloc(1000, reborn);
  CHECK(q != p);
  // The dead stream's cached segment goes back to the device when the cache is emptied.
  f.allocator->free(q);
  f.allocator->empty_cache();
  CHECK(f.device->live.empty());
}

TEST_CASE("a free whose event cannot be recorded raises and keeps the block from reuse") {
  Fixture f;
  void* p = f.allocator->malloc(1000, f.s1);
  f.allocator->record_stream(p, f.s2);
  f.device->destroy_stream(f.s2.handle);  // destroyed without telling the allocator
  CHECK_THROWS_WITH(f.allocator->free(p), Contains("destroyed stream"));
  CHECK(f.allocator->malloc(1000, f.s1) != p);
  CHECK(f.allocator->stats().allocated_bytes == 2 * 1024);
}
