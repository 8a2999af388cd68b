// DataLoader with pin_memory on a machine with a GPU: batches come in pinned memory, equal to
// the unpinned ones, and copy to the device asynchronously.
#include <catch2/catch.hpp>

#include "autograd/ops.h"
#include "cuda/device.h"
#include "cuda/pinned_allocator.h"
#include "data/data_loader.h"
#include "data/tensor_dataset.h"

using namespace brisk;
using namespace brisk::data;

TEST_CASE("DataLoader pin_memory hands out pinned batches", "[data][loader][gpu]") {
  auto ds = std::make_shared<TensorDataset>(arange(0, 60, 1, kFloat32).view({20, 3}), arange(0, 20, 1, kInt64));
  auto options = DataLoaderOptions().batch_size(8).shuffle(true).seed(3).num_workers(2);
  DataLoader plain(ds, options);
  DataLoader pinned(ds, options.pin_memory(true));
  std::vector<Batch> expected;
  for (Batch& b : plain) expected.push_back(b);
  size_t i = 0;
  for (Batch& b : pinned) {
    REQUIRE(i < expected.size());
    CHECK(cuda::is_pinned(b.data));
    CHECK(cuda::is_pinned(b.target));
    CHECK(equal(b.data, expected[i].data));
    CHECK(equal(b.target, expected[i].target));
    Tensor on_gpu = b.data.to(cuda_device(0), /*non_blocking=*/true);
    CHECK(equal(on_gpu.cpu(), expected[i].data));
    ++i;
  }
  CHECK(i == expected.size());
}

TEST_CASE("DataLoader pins for pin_memory_device and leaves the caller's device alone", "[data][loader][gpu]") {
  auto ds = std::make_shared<TensorDataset>(arange(0, 60, 1, kFloat32).view({20, 3}), arange(0, 20, 1, kInt64));
  int last = cuda::device_count() - 1;
  int before = cuda::current_device();
  for (int workers : {0, 2}) {
    DataLoader pinned(ds, DataLoaderOptions().batch_size(8).num_workers(workers).pin_memory(true).pin_memory_device(
                              cuda_device(last)));
    for (Batch& b : pinned) {
      CHECK(cuda::is_pinned(b.data));
      CHECK(cuda::current_device() == before);
      Tensor on_gpu = b.data.to(cuda_device(last), /*non_blocking=*/true);
      CHECK(equal(on_gpu.cpu(), b.data));
    }
  }
}
