// Which device the DataLoader's threads pin batches for, checked without a GPU through a fake
// pinned allocator registered for CUDA (tensor/allocator.h) in place of //cuda's: it records
// the device of every request and the thread that made it, and serves plain host memory.
#include "data/pin_memory.h"

#include <catch2/catch.hpp>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "autograd/ops.h"
#include "data/data_loader.h"
#include "data/tensor_dataset.h"
#include "tensor/allocator.h"

using namespace brisk;
using namespace brisk::data;
using Catch::Matchers::Contains;

namespace {

class FakePinnedAllocator final : public Allocator {
 public:
  // Requests then raise this, as CUDA's allocator does on a machine without a GPU.
  explicit FakePinnedAllocator(std::string failure = "") : failure_(std::move(failure)) {}

  DataPtr allocate(size_t nbytes, Device device) override {
    BRISK_CHECK(failure_.empty(), "{}", failure_);
    if (nbytes > 0) {  // 0 bytes: check_pin_memory_available's probe
      std::lock_guard<std::mutex> lock(mutex_);
      pinned_for_.push_back(device.index);
      threads_.insert({std::this_thread::get_id(), 0});
    }
    return cpu_allocator()->allocate(nbytes, kCPU);
  }

  // The device of each allocation of pinned memory.
  std::vector<int> pinned_for() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return pinned_for_;
  }
  size_t threads() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return threads_.size();
  }

 private:
  std::string failure_;
  mutable std::mutex mutex_;
  std::vector<int> pinned_for_;
  std::map<std::thread::id, int> threads_;
};

// Registers `allocator` as CUDA's pinned allocator for a test's scope.
struct UsePinned {
  Allocator* previous = pinned_allocator_for(DeviceType::CUDA);
  explicit UsePinned(Allocator* allocator) { register_allocator(DeviceType::CUDA, allocator, MemoryKind::kPinnedHost); }
  ~UsePinned() { register_allocator(DeviceType::CUDA, previous, MemoryKind::kPinnedHost); }
};

std::shared_ptr<TensorDataset> numbers(int64_t n) {
  return std::make_shared<TensorDataset>(arange(0, n * 3, 1, kFloat32).view({n, 3}), arange(0, n, 1, kInt64));
}

void run_epoch(DataLoader& loader) {
  for (Batch& batch : loader) CHECK(batch.data.defined());
}

}  // namespace

TEST_CASE("DataLoader workers pin for the pin_memory_device, whatever thread pins") {
  FakePinnedAllocator fake;
  UsePinned use(&fake);
  for (int workers : {0, 1, 3}) {
    INFO(workers << " workers");
    DataLoader loader(
        numbers(20),
        DataLoaderOptions().batch_size(4).num_workers(workers).pin_memory(true).pin_memory_device(cuda_device(2)));
    run_epoch(loader);
  }
  std::vector<int> devices = fake.pinned_for();
  REQUIRE(devices.size() == 3 * 5 * 2);  // 3 loaders, 5 batches, data and target
  for (int device : devices) CHECK(device == 2);
  CHECK(fake.threads() >= 2);  // the consumer thread and worker threads
}

TEST_CASE("pinned batches equal the unpinned ones") {
  FakePinnedAllocator fake;
  UsePinned use(&fake);
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
  FakePinnedAllocator fake;
  UsePinned use(&fake);
  CHECK_THROWS_WITH(DataLoader(numbers(4), DataLoaderOptions().pin_memory(true).pin_memory_device(kCPU)),
                    Contains("pin_memory_device must be a CUDA device") && Contains("cpu"));
  CHECK_THROWS_WITH(pin_memory(Batch{arange(0, 3, 1, kFloat32), Tensor()}, kCPU),
                    Contains("pinned memory is for copies to a CUDA device"));
}

TEST_CASE("pin_memory copies each CPU tensor into memory pinned for the given device") {
  FakePinnedAllocator fake;
  UsePinned use(&fake);
  Tensor data = arange(0, 6, 1, kFloat32).view({3, 2}).transpose(0, 1);  // not contiguous
  Batch pinned = pin_memory(Batch{data, Tensor()}, cuda_device(4));
  CHECK(fake.pinned_for() == std::vector<int>{4});
  CHECK(pinned.data.is_contiguous());
  CHECK(equal(pinned.data, data));
  CHECK_FALSE(pinned.target.defined());
}

TEST_CASE("without usable pinned memory, the DataLoader says why when it is made") {
  SECTION("no pinned allocator registered: a build without CUDA") {
    UsePinned use(nullptr);
    CHECK_THROWS_WITH(DataLoader(numbers(4), DataLoaderOptions().pin_memory(true).pin_memory_device(cuda_device(0))),
                      Contains("DataLoader: cannot pin memory: pinned memory needs CUDA, but"));
    CHECK_THROWS_WITH(pin_memory(Batch{arange(0, 3, 1, kFloat32), Tensor()}, cuda_device(0)),
                      Contains("pin_memory: cannot pin memory: pinned memory needs CUDA"));
  }
  SECTION("a pinned allocator that cannot serve: a machine without a GPU") {
    FakePinnedAllocator failing("pinned memory needs CUDA, but no CUDA GPU present");
    UsePinned use(&failing);
    CHECK_THROWS_WITH(DataLoader(numbers(4), DataLoaderOptions().pin_memory(true).pin_memory_device(cuda_device(0))),
                      Contains("DataLoader: cannot pin memory: pinned memory needs CUDA, but no CUDA GPU present"));
  }
}
