// The cuBLAS workspace of each (device, stream) (cuda/blas_workspaces.h), on the CPU with the
// caching allocator over a fake device (fake_memory_api.h) in place of the GPU's.
#include "cuda/blas_workspaces.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>

#include "cuda/caching_allocator.h"
#include "tests/cuda/fake_memory_api.h"

using namespace brisk::cuda;
using brisk::cuda::testing::fake_stream;
using brisk::cuda::testing::FakeMemoryApi;
using brisk::cuda::testing::FakeState;

namespace {

constexpr size_t kBytes = size_t{4} << 20;

// One fake device per index, each with its caching allocator; counts the workspaces made.
struct Devices {
  std::shared_ptr<FakeState> state[2] = {std::make_shared<FakeState>(), std::make_shared<FakeState>()};
  DeviceCachingAllocator allocators[2] = {DeviceCachingAllocator(0, std::make_unique<FakeMemoryApi>(state[0])),
                                          DeviceCachingAllocator(1, std::make_unique<FakeMemoryApi>(state[1]))};
  int allocations = 0;

  // What cuda/gemm.cc does: a workspace allocated on the stream it serves.
  BlasWorkspaces::Allocate on(int device, StreamRef stream) {
    return [this, device, stream] {
      ++allocations;
      DeviceCachingAllocator* allocator = &allocators[device];
      return std::shared_ptr<void>(allocator->malloc(kBytes, stream), [allocator](void* p) { allocator->free(p); });
    };
  }
};

void* get(BlasWorkspaces& workspaces, Devices& devices, int device, StreamRef stream) {
  return workspaces.get(device, stream, devices.on(device, stream));
}

// Two workspaces share no byte.
bool disjoint(void* a, void* b) {
  auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  return x + kBytes <= y || y + kBytes <= x;
}

}  // namespace

TEST_CASE("a stream keeps its cuBLAS workspace from call to call") {
  Devices devices;
  BlasWorkspaces workspaces;
  StreamRef s{fake_stream(0x10), 1};
  void* first = get(workspaces, devices, 0, s);
  CHECK(first != nullptr);
  CHECK(get(workspaces, devices, 0, s) == first);
  CHECK(devices.allocations == 1);
  CHECK(devices.allocators[0].stats().allocated_bytes == kBytes);
}

TEST_CASE("two streams of a device get separate cuBLAS workspaces") {
  // The race this prevents: one handle serves both streams, and with one workspace two
  // products queued on them would overwrite each other's scratch data on the GPU.
  Devices devices;
  BlasWorkspaces workspaces;
  StreamRef s1{fake_stream(0x10), 1}, s2{fake_stream(0x20), 2};
  void* a = get(workspaces, devices, 0, s1);
  void* b = get(workspaces, devices, 0, s2);
  CHECK(disjoint(a, b));
  CHECK(get(workspaces, devices, 0, s1) == a);
  CHECK(get(workspaces, devices, 0, s2) == b);
  CHECK(devices.allocations == 2);
}

TEST_CASE("the default stream of each device has its own cuBLAS workspace") {
  // The legacy default stream is the handle nullptr on every device.
  Devices devices;
  BlasWorkspaces workspaces;
  StreamRef legacy{nullptr, 0};
  get(workspaces, devices, 0, legacy);
  get(workspaces, devices, 1, legacy);
  CHECK(devices.allocations == 2);
  CHECK(devices.allocators[0].stats().allocated_bytes == kBytes);
  CHECK(devices.allocators[1].stats().allocated_bytes == kBytes);
}

TEST_CASE("a new stream with a destroyed stream's handle gets a new workspace, the old one is freed") {
  Devices devices;
  BlasWorkspaces workspaces;
  StreamRef old_stream{fake_stream(0x10), 1};
  void* old_workspace = get(workspaces, devices, 0, old_stream);
  // The old stream is retired and destroyed with work still queued; CUDA gives its handle to
  // the next stream, which the registry gives a new id.
  devices.allocators[0].retire_stream(old_stream);
  devices.state[0]->destroy_stream(old_stream.handle);
  devices.state[0]->reuse_stream_handle(old_stream.handle);
  StreamRef new_stream{fake_stream(0x10), 7};
  void* new_workspace = get(workspaces, devices, 0, new_stream);
  CHECK(devices.allocations == 2);
  // The old stream's last work may still use its workspace: the new one shares no byte.
  CHECK(disjoint(old_workspace, new_workspace));
  // Only one workspace is kept per handle.
  CHECK(devices.allocators[0].stats().allocated_bytes == kBytes);
  CHECK(get(workspaces, devices, 0, new_stream) == new_workspace);
}

TEST_CASE("cuBLAS workspaces have the size cuBLAS recommends for the device") {
  CHECK(blas_workspace_size(7) == (size_t{4} << 20));
  CHECK(blas_workspace_size(8) == (size_t{4} << 20));
  CHECK(blas_workspace_size(9) == (size_t{32} << 20));
  CHECK(blas_workspace_size(10) == (size_t{32} << 20));
}
