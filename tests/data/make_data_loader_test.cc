// make_data_loader: libtorch's defaults (a RandomSampler: shuffled) and SequentialSampler,
// over a MapDataset or a shared Dataset; DataLoaderOptions(batch_size) and workers().
#include "data/make_data_loader.h"

#include <catch2/catch.hpp>
#include <set>

#include "autograd/ops.h"
#include "data/tensor_dataset.h"
#include "data/transforms/stack.h"

using namespace brisk;
using namespace brisk::data;

namespace {
std::vector<int64_t> order(DataLoader& loader) {
  std::vector<int64_t> out;
  for (Batch& batch : loader) {
    for (int64_t t : batch.target.to_vector<int64_t>()) out.push_back(t);
  }
  return out;
}
}  // namespace

TEST_CASE("make_data_loader: shuffled by default, in order with SequentialSampler", "[data][loader]") {
  auto numbers = std::make_shared<TensorDataset>(arange(0, 40, 1, kFloat32).view({20, 2}), arange(0, 20, 1, kInt64));
  auto dataset = datasets::MapDataset(numbers).map(transforms::Stack<>());

  auto in_order = make_data_loader<samplers::SequentialSampler>(dataset, 8);
  CHECK(in_order->options().batch_size() == 8);
  CHECK_FALSE(in_order->options().shuffle());
  std::vector<int64_t> sequential = order(*in_order);
  CHECK(sequential == arange(0, 20, 1, kInt64).to_vector<int64_t>());
  Batch first = *in_order->begin();
  CHECK(first.data.sizes() == Shape{8, 2});

  auto shuffled = make_data_loader(dataset, DataLoaderOptions().batch_size(6).workers(2).seed(3));
  CHECK(shuffled->options().num_workers() == 2);
  CHECK(shuffled->options().shuffle());
  std::vector<int64_t> random = order(*shuffled);
  CHECK(random != sequential);
  CHECK(std::set<int64_t>(random.begin(), random.end()).size() == 20);
  CHECK(shuffled->size() == 4);

  // A shared Brisk dataset directly.
  auto plain = make_data_loader<samplers::SequentialSampler>(numbers, DataLoaderOptions(5).drop_last(true));
  CHECK(order(*plain) == sequential);
}
