// Stream ids: never reused, even when CUDA reuses a destroyed stream's handle.
#include "cuda/stream_registry.h"

#include <catch2/catch.hpp>

#include "tests/cuda/fake_memory_api.h"

using namespace brisk::cuda;
using brisk::cuda::testing::fake_stream;

TEST_CASE("the legacy default stream always has id 0") {
  StreamRegistry streams;
  CHECK(streams.ref(nullptr).id == StreamRegistry::kDefaultStreamId);
  CHECK(streams.retire(nullptr).id == StreamRegistry::kDefaultStreamId);
  CHECK(streams.ref(nullptr).id == StreamRegistry::kDefaultStreamId);
}

TEST_CASE("a stream keeps its id until it is retired") {
  StreamRegistry streams;
  StreamRef a = streams.created(fake_stream(0x10));
  StreamRef b = streams.created(fake_stream(0x20));
  CHECK(a.id != b.id);
  CHECK(a.id != StreamRegistry::kDefaultStreamId);
  CHECK(streams.ref(fake_stream(0x10)).id == a.id);
  CHECK(streams.ref(fake_stream(0x10)).handle == fake_stream(0x10));
  CHECK(streams.retire(fake_stream(0x10)).id == a.id);
  CHECK(streams.ref(fake_stream(0x20)).id == b.id);
}

TEST_CASE("a new stream with a retired stream's handle gets a new id") {
  StreamRegistry streams;
  StreamRef old = streams.created(fake_stream(0x10));
  streams.retire(fake_stream(0x10));
  CHECK(streams.created(fake_stream(0x10)).id != old.id);
  // Also when the new stream is first seen through ref() (made outside Brisk).
  StreamRef seen = streams.ref(fake_stream(0x30));
  streams.retire(fake_stream(0x30));
  StreamRef again = streams.ref(fake_stream(0x30));
  CHECK(again.id != seen.id);
  CHECK(streams.ref(fake_stream(0x30)).id == again.id);
}

TEST_CASE("creating a stream replaces the id of an unretired handle") {
  // A stream made outside Brisk and destroyed without retire(): the next cuda::Stream that
  // gets its handle must not inherit its id.
  StreamRegistry streams;
  StreamRef foreign = streams.ref(fake_stream(0x40));
  CHECK(streams.created(fake_stream(0x40)).id != foreign.id);
}
