// TensorDataset, TransformDataset, Subset and default_collate.
#include <catch2/catch.hpp>

#include "autograd/ops.h"
#include "data/collate.h"
#include "data/dataset.h"
#include "data/tensor_dataset.h"
#include "data/transform_dataset.h"

using namespace brisk;
using namespace brisk::data;
using Catch::Matchers::Contains;

TEST_CASE("TensorDataset hands out rows", "[data][dataset]") {
  TensorDataset ds(arange(0, 12, 1, kFloat32).view({4, 3}), tensor<int64_t>({7, 8, 9, 10}));
  CHECK(ds.size() == 4);
  Example<> e = ds.get(2);
  CHECK(e.data.to_vector<float>() == std::vector<float>{6, 7, 8});
  CHECK(e.target.item<int64_t>() == 9);
  CHECK_THROWS_WITH(ds.get(-1), Contains("TensorDataset: index -1 is out of range for a dataset of 4 examples"));
  CHECK_FALSE(TensorDataset(zeros({2, 1})).get(0).target.defined());
  CHECK_THROWS_WITH(TensorDataset(zeros({4, 3}), zeros({5})),
                    Contains("data has 4 rows but target has 5") && Contains("[4, 3]") && Contains("[5]"));
  CHECK_THROWS_WITH(TensorDataset(scalar_tensor(1.0)), Contains("at least one dim"));
}

TEST_CASE("TransformDataset applies transforms to data and target", "[data][dataset]") {
  auto base = std::make_shared<TensorDataset>(tensor<float>({1, 2, 3, 4}, {2, 2}), tensor<int64_t>({0, 1}));
  TransformDataset ds(
      base, [](const Tensor& x) { return x * 10; }, [](const Tensor& y) { return y + 5; });
  CHECK(ds.size() == 2);
  Example<> e = ds.get(1);
  CHECK(e.data.to_vector<float>() == std::vector<float>{30, 40});
  CHECK(e.target.item<int64_t>() == 6);
  CHECK(TransformDataset(base, nullptr).get(0).data.to_vector<float>() == std::vector<float>{1, 2});
}

TEST_CASE("Subset hands out the examples at its indices", "[data][dataset]") {
  auto ds = std::make_shared<TensorDataset>(arange(0, 12, 1, kFloat32).view({4, 3}), tensor<int64_t>({7, 8, 9, 10}));
  Subset middle(ds, index_range(1, 2));
  CHECK(middle.size() == 2);
  CHECK(middle.indices() == std::vector<int64_t>{1, 2});
  CHECK(middle.get(1).data.to_vector<float>() == std::vector<float>{6, 7, 8});
  CHECK(middle.get(0).target.item<int64_t>() == 8);
  CHECK(Subset(ds, {3, 0}).get(0).target.item<int64_t>() == 10);
  CHECK_THROWS_WITH(middle.get(2), Contains("Subset: index 2 is out of range for a dataset of 2 examples"));
  CHECK_THROWS_WITH(Subset(ds, {4}), Contains("Subset: index 4 is out of range for a dataset of 4 examples"));
  CHECK_THROWS_WITH(Subset(nullptr, {}), Contains("Subset: the dataset is null"));
}

TEST_CASE("default_collate stacks data and targets", "[data][collate]") {
  Tensor images = arange(0, 24, 1, kInt64).to(kUInt8).view({4, 2, 3});
  std::vector<Example<>> examples;
  for (int64_t i : {3, 0, 2}) examples.push_back({images[i], scalar_tensor(Scalar(i), kInt64)});
  // A non-contiguous example is copied too.
  examples.push_back({images[1].t().contiguous().t(), scalar_tensor(Scalar(int64_t{1}), kInt64)});
  Batch b = default_collate(examples);
  CHECK(b.data.sizes() == Shape{4, 2, 3});
  CHECK(b.data.dtype() == kUInt8);
  CHECK(equal(b.data, index_select(images, 0, tensor<int64_t>({3, 0, 2, 1}))));
  CHECK(b.target.sizes() == Shape{4});
  CHECK(b.target.to_vector<int64_t>() == std::vector<int64_t>{3, 0, 2, 1});

  CHECK_FALSE(default_collate({{zeros({2}), Tensor()}}).target.defined());
  CHECK_THROWS_WITH(
      default_collate({{zeros({2, 3}), Tensor()}, {zeros({2, 4}), Tensor()}}),
      Contains("data of example 1") && Contains("[2, 4]") && Contains("[2, 3]") && Contains("collate function"));
  CHECK_THROWS_WITH(default_collate({{zeros({2}), zeros({})}, {zeros({2}), zeros({}, kInt64)}}),
                    Contains("target of example 1") && Contains("int64") && Contains("float32"));
  CHECK_THROWS_WITH(default_collate({{zeros({2}), zeros({})}, {zeros({2}), Tensor()}}),
                    Contains("example 1 of the batch has no target"));
  CHECK_THROWS_WITH(default_collate({}), Contains("at least one example"));
}
