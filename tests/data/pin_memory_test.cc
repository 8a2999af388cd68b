// Which device the DataLoader's threads pin batches on, checked without a GPU through a fake
// PinnedMemoryRuntime: each thread has its own current device (0 until set, as in CUDA), and
// every pinned allocation records the current device of the thread that made it.
#include "data/pin_memory.h"

#include <catch2/catch.hpp>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "autograd/ops.h"
#include "data/data_loader.h"
#include "data/pinned_memory_runtime.h"
#include "data/tensor_dataset.h"

using namespace brisk;
using namespace brisk::data;
using Catch::Matchers::Contains;

namespace {

thread_local int fake_current_device = 0;

class FakeRuntime final : public PinnedMemoryRuntime {
 public:
  std::string unavailable_reason() const override { return ""; }
  int current_device() const override { return fake_current_device; }
  void set_device(int device) override { fake_current_device = device; }
  Tensor pin(const Tensor& tensor) override {
    std::lock_guard<std::mutex> lock(mutex_);
    pinned_on_.push_back(fake_current_device);
    threads_.insert({std::this_thread::get_id(), 0});
    return tensor.clone();
  }

  // The current device of the pinning thread at each allocation.
  std::vector<int> pinned_on() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return pinned_on_;
  }
  size_t threads() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return threads_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::vector<int> pinned_on_;
  std::map<std::thread::id, int> threads_;
};

// Installs a FakeRuntime for a test's scope.
struct UseFakeRuntime {
  FakeRuntime fake;
  PinnedMemoryRuntime* previous = set_pinned_memory_runtime(&fake);
  ~UseFakeRuntime() {
    set_pinned_memory_runtime(previous);
    fake_current_device = 0;
  }
};

std::shared_ptr<TensorDataset> numbers(int64_t n) {
  return std::make_shared<TensorDataset>(arange(0, n * 3, 1, kFloat32).view({n, 3}), arange(0, n, 1, kInt64));
}

void run_epoch(DataLoader& loader) {
  for (Batch& batch : loader) CHECK(batch.data.defined());
}

}  // namespace

TEST_CASE("DataLoader workers pin on the pin_memory_device, not on the device a new thread starts with") {
  UseFakeRuntime runtime;
  for (int workers : {0, 1, 3}) {
    INFO(workers << " workers");
    DataLoader loader(
        numbers(20),
        DataLoaderOptions().batch_size(4).num_workers(workers).pin_memory(true).pin_memory_device(cuda_device(2)));
    run_epoch(loader);
  }
  std::vector<int> devices = runtime.fake.pinned_on();
  REQUIRE(devices.size() == 3 * 5 * 2);  // 3 loaders, 5 batches, data and target
  for (int device : devices) CHECK(device == 2);
  CHECK(runtime.fake.threads() >= 2);  // the consumer thread and worker threads
  CHECK(fake_current_device == 0);     // the consumer's own device is restored
}

TEST_CASE("without pin_memory_device, batches are pinned on the constructing thread's current device") {
  UseFakeRuntime runtime;
  fake_current_device = 3;  // the training program's cuda::set_device(local_rank)
  DataLoader loader(numbers(12), DataLoaderOptions().batch_size(4).num_workers(2).pin_memory(true));
  fake_current_device = 0;
  run_epoch(loader);
  std::vector<int> devices = runtime.fake.pinned_on();
  REQUIRE(devices.size() == 6);
  for (int device : devices) CHECK(device == 3);
}

TEST_CASE("pinned batches equal the unpinned ones") {
  UseFakeRuntime runtime;
  auto options = DataLoaderOptions().batch_size(5).shuffle(true).seed(7).num_workers(2);
  DataLoader plain(numbers(17), options);
  DataLoader pinned(numbers(17), options.pin_memory(true).pin_memory_device(cuda_device(1)));
  std::vector<Batch> expected;
  for (Batch& b : plain) expected.push_back(b);
  size_t i = 0;
  for (Batch& b : pinned) {
    REQUIRE(i < expected.size());
    CHECK(equal(b.data, expected[i].data));
    CHECK(equal(b.target, expected[i].target));
    ++i;
  }
  CHECK(i == expected.size());
}

TEST_CASE("pin_memory_device must be a CUDA device") {
  UseFakeRuntime runtime;
  CHECK_THROWS_WITH(DataLoader(numbers(4), DataLoaderOptions().pin_memory(true).pin_memory_device(kCPU)),
                    Contains("pin_memory_device must be a CUDA device") && Contains("cpu"));
  CHECK_THROWS_WITH(pin_memory(Batch{arange(0, 3, 1, kFloat32), Tensor()}, kCPU),
                    Contains("pinned memory is for copies to a CUDA device"));
}

TEST_CASE("pin_memory pins on the given device and restores the calling thread's") {
  UseFakeRuntime runtime;
  fake_current_device = 1;
  Batch pinned = pin_memory(Batch{arange(0, 3, 1, kFloat32), arange(0, 3, 1, kInt64)}, cuda_device(4));
  CHECK(runtime.fake.pinned_on() == std::vector<int>{4, 4});
  CHECK(fake_current_device == 1);
}
