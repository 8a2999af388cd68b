#pragma once
// A DeviceMemoryApi without a GPU, for the caching allocators' tests: hands out addresses
// from a fake address space with a capacity (never dereferenced), and events that stay
// pending until the test completes them.
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>

#include "cuda/device_memory_api.h"

namespace brisk::cuda::testing {

inline StreamHandle fake_stream(uintptr_t id) { return reinterpret_cast<StreamHandle>(id); }

struct FakeState {
  size_t capacity = size_t{1} << 30;
  size_t used = 0;
  uintptr_t next_address = uintptr_t{1} << 32;
  std::map<void*, size_t> live;  // memory handed out and not freed
  int mallocs = 0;
  int failed_mallocs = 0;
  int frees = 0;
  struct Event {
    StreamHandle stream;
    bool done = false;
  };
  std::map<uintptr_t, Event> events;  // created and not destroyed
  uintptr_t next_event = 1;
  std::set<StreamHandle> destroyed_streams;  // recording on one of these fails, as in CUDA

  // The stream is destroyed; its queued work (and events) complete later, by complete().
  // CUDA may hand its handle to a new stream.
  void destroy_stream(StreamHandle stream) { destroyed_streams.insert(stream); }
  // A new stream gets the handle of a destroyed one.
  void reuse_stream_handle(StreamHandle stream) { destroyed_streams.erase(stream); }

  // The work queued so far on `stream` finishes: its events complete.
  void complete(StreamHandle stream) {
    for (auto& [id, event] : events) {
      if (event.stream == stream) event.done = true;
    }
  }
};

class FakeMemoryApi final : public DeviceMemoryApi {
 public:
  explicit FakeMemoryApi(std::shared_ptr<FakeState> state) : s_(std::move(state)) {}

  bool malloc(void** ptr, size_t nbytes) override {
    if (s_->used + nbytes > s_->capacity) {
      ++s_->failed_mallocs;
      return false;
    }
    *ptr = reinterpret_cast<void*>(s_->next_address);
    // A gap after each allocation, so neighbouring segments are never contiguous.
    s_->next_address += nbytes + 4096;
    s_->used += nbytes;
    s_->live[*ptr] = nbytes;
    ++s_->mallocs;
    return true;
  }

  void free(void* ptr) override {
    auto it = s_->live.find(ptr);
    if (it == s_->live.end()) throw std::logic_error("fake free of memory not from the fake malloc");
    s_->used -= it->second;
    s_->live.erase(it);
    ++s_->frees;
  }

  void mem_get_info(size_t* free, size_t* total) override {
    *free = s_->capacity - s_->used;
    *total = s_->capacity;
  }

  EventHandle record_event(StreamHandle stream) override {
    if (s_->destroyed_streams.count(stream) > 0) throw std::logic_error("fake event recorded on a destroyed stream");
    uintptr_t id = s_->next_event++;
    s_->events[id] = {stream, false};
    return reinterpret_cast<EventHandle>(id);
  }

  bool query_event(EventHandle event) override { return get(event).done; }
  void synchronize_event(EventHandle event) override { get(event).done = true; }

  void destroy_event(EventHandle event) override {
    get(event);
    s_->events.erase(reinterpret_cast<uintptr_t>(event));
  }

 private:
  FakeState::Event& get(EventHandle event) {
    auto it = s_->events.find(reinterpret_cast<uintptr_t>(event));
    if (it == s_->events.end()) throw std::logic_error("fake event used after destroy or never created");
    return it->second;
  }

  std::shared_ptr<FakeState> s_;
};

}  // namespace brisk::cuda::testing
