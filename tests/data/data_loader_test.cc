// DataLoader: batching, shuffling per epoch, determinism whatever the number of workers,
// drop_last, custom collate, bounded prefetching, errors from workers, and an epoch chosen
// through the sampler (against PyTorch's DistributedSampler order,
// tests/fixtures/distributed_sampler.json).
#include "data/data_loader.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "autograd/ops.h"
#include "cuda/device.h"
#include "data/distributed_sampler.h"
#include "data/sampler.h"
#include "data/tensor_dataset.h"
#include "data/transform_dataset.h"
#include "data/transforms/compose.h"
#include "data/transforms/random_crop.h"
#include "data/transforms/random_horizontal_flip.h"

using namespace brisk;
using namespace brisk::data;
using Catch::Matchers::Contains;

namespace {

// Example i: data = an 8x8 image of the values 100 * i + 0..63, target = i.
std::shared_ptr<TensorDataset> images(int64_t n) {
  return std::make_shared<TensorDataset>(
      (arange(0, n * 64, 1, kInt64).view({n, 64}) + arange(0, n, 1, kInt64).view({n, 1}) * 36)
          .view({n, 1, 8, 8})
          .to(kFloat32),
      arange(0, n, 1, kInt64));
}

std::vector<Batch> epoch(DataLoader& loader) {
  std::vector<Batch> out;
  for (Batch& b : loader) out.push_back(b);
  return out;
}

bool same(const std::vector<Batch>& a, const std::vector<Batch>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!equal(a[i].data, b[i].data) || !equal(a[i].target, b[i].target)) return false;
  }
  return true;
}

std::vector<int64_t> targets(const std::vector<Batch>& batches) {
  std::vector<int64_t> out;
  for (const Batch& b : batches) {
    for (int64_t t : b.target.to_vector<int64_t>()) out.push_back(t);
  }
  return out;
}

// Counts the examples loaded, and fails on the example `fail_at`.
class Probe : public Dataset {
 public:
  Probe(int64_t n, int64_t fail_at) : n_(n), fail_at_(fail_at) {}
  int64_t size() const override { return n_; }
  Example<> get(int64_t index) const override {
    ++loaded;
    if (index == fail_at_) throw Error("Probe: cannot decode example " + std::to_string(index));
    return {full({2}, Scalar(index), kInt64), scalar_tensor(Scalar(index), kInt64)};
  }
  mutable std::atomic<int64_t> loaded{0};

 private:
  int64_t n_;
  int64_t fail_at_;
};

}  // namespace

TEST_CASE("DataLoader batches a dataset in order", "[data][loader]") {
  DataLoader loader(images(10), DataLoaderOptions().batch_size(4));
  CHECK(loader.size() == 3);
  std::vector<Batch> batches = epoch(loader);
  REQUIRE(batches.size() == 3);
  CHECK(batches[0].data.sizes() == Shape{4, 1, 8, 8});
  CHECK(batches[2].data.sizes() == Shape{2, 1, 8, 8});
  CHECK(targets(batches) == std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  CHECK(equal(batches[1].data[0], images(10)->data()[4]));

  DataLoader dropping(images(10), DataLoaderOptions().batch_size(4).drop_last(true));
  CHECK(dropping.size() == 2);
  CHECK(targets(epoch(dropping)) == std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7});

  DataLoader empty(images(0), DataLoaderOptions().batch_size(4));
  CHECK(empty.size() == 0);
  CHECK(epoch(empty).empty());
}

TEST_CASE("DataLoader shuffles per epoch, deterministically given the seed", "[data][loader]") {
  auto options = DataLoaderOptions().batch_size(8).shuffle(true).seed(1234);
  DataLoader a(images(50), options);
  std::vector<Batch> a0 = epoch(a);
  std::vector<Batch> a1 = epoch(a);  // the next epoch
  std::vector<int64_t> order = targets(a0);
  std::set<int64_t> seen(order.begin(), order.end());
  CHECK(seen.size() == 50);
  DataLoader in_order(images(50), DataLoaderOptions().batch_size(8));
  CHECK(order != targets(epoch(in_order)));
  CHECK(targets(a1) != order);

  DataLoader b(images(50), options);
  b.set_epoch(1);
  CHECK(same(epoch(b), a1));
  b.set_epoch(0);
  CHECK(same(epoch(b), a0));
  CHECK(b.epoch() == 1);

  DataLoader c(images(50), options.seed(4321));
  CHECK(targets(epoch(c)) != order);

  // Without a seed, brisk::manual_seed decides.
  manual_seed(5);
  DataLoader d(images(50), DataLoaderOptions().batch_size(8).shuffle(true));
  manual_seed(5);
  DataLoader e(images(50), DataLoaderOptions().batch_size(8).shuffle(true));
  CHECK(d.seed() == e.seed());
  CHECK(same(epoch(d), epoch(e)));
}

TEST_CASE("DataLoader loads the epoch chosen by the sampler's set_epoch, then counts on from it",
          "[data][loader]") {
  // PyTorch's DistributedSampler order for 6001 examples, 2 replicas, seed 0, epoch 3, rank 0.
  std::ifstream in("tests/fixtures/distributed_sampler.json");
  REQUIRE(in.good());
  const nlohmann::json fixture = nlohmann::json::parse(in);
  std::vector<int64_t> epoch3;
  for (const nlohmann::json& c : fixture["sampler"]) {
    if (c["size"] == 6001 && c["epoch"] == 3) epoch3 = c["indices"][0].get<std::vector<int64_t>>();
  }
  REQUIRE(epoch3.size() == 3001);
  auto dataset = std::make_shared<TensorDataset>(arange(0, 6001, 1, kFloat32), arange(0, 6001, 1, kInt64));
  auto options = DataLoaderOptions().batch_size(1000).seed(7);

  // A program resuming at epoch 3 the way PyTorch programs do, through the sampler.
  auto sampler = std::make_shared<DistributedSampler>(6001, 2, 0);
  DataLoader resumed(dataset, sampler, options);
  sampler->set_epoch(3);
  CHECK(resumed.epoch() == 3);
  CHECK(targets(epoch(resumed)) == epoch3);
  CHECK(sampler->epoch() == 3);
  CHECK(resumed.epoch() == 4);  // without another choice, the count goes on from the chosen epoch
  auto epoch4_sampler = DistributedSampler(6001, 2, 0);
  epoch4_sampler.set_epoch(4);
  CHECK(targets(epoch(resumed)) == epoch4_sampler.indices());

  // The same order and the same per-example seeds as a loader that counted up to epoch 3.
  DataLoader counted(dataset, std::make_shared<DistributedSampler>(6001, 2, 0), options);
  for (int e = 0; e < 3; ++e) epoch(counted);
  DataLoader chosen(dataset, std::make_shared<DistributedSampler>(6001, 2, 0), options);
  chosen.sampler().set_epoch(3);
  CHECK(same(epoch(chosen), epoch(counted)));

  // The latest choice wins, whether made through the loader or the sampler.
  resumed.set_epoch(9);
  sampler->set_epoch(3);
  CHECK(targets(epoch(resumed)) == epoch3);
  sampler->set_epoch(9);
  resumed.set_epoch(3);
  CHECK(targets(epoch(resumed)) == epoch3);
}

TEST_CASE("DataLoader batches, random transforms included, do not depend on num_workers", "[data][loader]") {
  auto augmented = std::make_shared<TransformDataset>(images(64), Compose({RandomCrop(6, 2), RandomHorizontalFlip()}));
  auto options = DataLoaderOptions().batch_size(5).shuffle(true).seed(99);
  DataLoader serial(augmented, options);
  DataLoader parallel(augmented, options.num_workers(3));
  for (int e = 0; e < 2; ++e) {
    std::vector<Batch> expected = epoch(serial);
    REQUIRE(expected.size() == 13);
    CHECK(expected[0].data.sizes() == Shape{5, 1, 6, 6});
    CHECK(same(epoch(parallel), expected));
  }
  // Another seed changes the augmentations too, not just the order: compare example 0's crops.
  auto first_crop = [&](uint64_t seed) {
    DataLoader loader(augmented, DataLoaderOptions().batch_size(64).seed(seed));
    return epoch(loader)[0].data[0];
  };
  CHECK(equal(first_crop(1), first_crop(1)));
  CHECK_FALSE(equal(first_crop(1), first_crop(2)));
}

TEST_CASE("DataLoader takes a collate function for variable-sized examples", "[data][loader]") {
  // Example i is a sequence of length i + 1; the collate pads to the longest and returns lengths.
  std::vector<Tensor> rows;
  for (int64_t i = 0; i < 5; ++i) rows.push_back(full({i + 1}, Scalar(i), kInt64));
  class Sequences : public Dataset {
   public:
    explicit Sequences(std::vector<Tensor> rows) : rows_(std::move(rows)) {}
    int64_t size() const override { return static_cast<int64_t>(rows_.size()); }
    Example<> get(int64_t i) const override { return {rows_[i], Tensor()}; }

   private:
    std::vector<Tensor> rows_;
  };
  auto pad = [](std::vector<Example<>> examples) {
    int64_t longest = 0;
    for (const Example<>& e : examples) longest = std::max(longest, e.data.size(0));
    Tensor out = full({static_cast<int64_t>(examples.size()), longest}, -1, kInt64);
    std::vector<int64_t> lengths;
    for (size_t i = 0; i < examples.size(); ++i) {
      out[static_cast<int64_t>(i)].narrow(0, 0, examples[i].data.size(0)).copy_(examples[i].data);
      lengths.push_back(examples[i].data.size(0));
    }
    return Batch{out, tensor(lengths, {static_cast<int64_t>(lengths.size())})};
  };
  auto ds = std::make_shared<Sequences>(rows);
  DataLoader loader(ds, DataLoaderOptions().batch_size(3).collate(pad).num_workers(2));
  std::vector<Batch> batches = epoch(loader);
  REQUIRE(batches.size() == 2);
  CHECK(batches[0].data.to_vector<int64_t>() == std::vector<int64_t>{0, -1, -1, 1, 1, -1, 2, 2, 2});
  CHECK(batches[1].target.to_vector<int64_t>() == std::vector<int64_t>{4, 5});

  DataLoader stacking(ds, DataLoaderOptions().batch_size(3));
  CHECK_THROWS_WITH(epoch(stacking), Contains("batch 0") && Contains("example 1") && Contains("collate function"));
}

TEST_CASE("DataLoader rethrows a worker's failure with the batch index", "[data][loader]") {
  for (int workers : {0, 3}) {
    auto probe = std::make_shared<Probe>(40, 17);  // example 17 is in batch 4 of size 4
    DataLoader loader(probe, DataLoaderOptions().batch_size(4).num_workers(workers));
    std::vector<int64_t> reached;
    try {
      for (auto it = loader.begin(); it != loader.end(); ++it) reached.push_back(it.index());
      FAIL("no exception");
    } catch (const Error& e) {
      CHECK_THAT(e.what(),
                 Contains("DataLoader: loading batch 4 failed") && Contains("Probe: cannot decode example 17"));
      if (workers > 0) CHECK_THAT(e.what(), Contains("in worker"));
    }
    CHECK(reached == std::vector<int64_t>{0, 1, 2, 3});
  }
}

TEST_CASE("DataLoader workers load a bounded number of batches ahead", "[data][loader]") {
  auto probe = std::make_shared<Probe>(200, -1);
  DataLoader loader(probe, DataLoaderOptions().batch_size(2).num_workers(2).prefetch_factor(2));
  int64_t consumed = 0;
  for (Batch& b : loader) {
    CHECK(b.data.size(0) == 2);
    ++consumed;
    // Holding batch k, workers may have claimed batches up to k + 4 (2 workers x 2).
    CHECK(probe->loaded.load() <= (consumed + 4) * 2);
    if (consumed == 10) break;  // leaving early stops and joins the workers
  }
  CHECK(consumed == 10);
}

TEST_CASE("DataLoader checks its options", "[data][loader]") {
  CHECK_THROWS_WITH(DataLoader(images(4), DataLoaderOptions().batch_size(0)), Contains("batch_size must be positive"));
  CHECK_THROWS_WITH(DataLoader(images(4), DataLoaderOptions().num_workers(-1)), Contains("num_workers"));
  CHECK_THROWS_WITH(DataLoader(nullptr), Contains("dataset is null"));
  CHECK_THROWS_WITH(DataLoader(images(4), std::make_shared<SequentialSampler>(4), DataLoaderOptions().shuffle(true)),
                    Contains("shuffle=true cannot be combined with a sampler"));
  if (!cuda::is_available()) {
    CHECK_THROWS_WITH(DataLoader(images(4), DataLoaderOptions().pin_memory(true)),
                      Contains("DataLoader: cannot pin memory: pinned memory needs CUDA, but") &&
                          Contains(cuda::unavailable_reason()));
  }
}
