// datasets::MapDataset: libtorch's value-type datasets and .map() over Brisk's datasets;
// transforms::Normalize<>, TensorLambda<> and Stack<> as a libtorch program spells them.
#include "data/map_dataset.h"

#include <catch2/catch.hpp>

#include "autograd/ops.h"
#include "data/tensor_dataset.h"
#include "data/transforms/normalize.h"
#include "tensor/error.h"

using namespace brisk;
using namespace brisk::data;
using Catch::Matchers::Contains;

TEST_CASE("MapDataset.map applies tensor transforms to each example's data, in order", "[data][map_dataset]") {
  Tensor images = arange(0, 24, 1, kFloat32).view({2, 3, 2, 2});
  Tensor labels = tensor<int64_t>({4, 7});
  datasets::MapDataset base(std::make_shared<TensorDataset>(images, labels));
  auto mapped = base.map(transforms::TensorLambda<>([](Tensor x) { return x * 2; }))
                    .map(transforms::Normalize<>({1, 2, 3}, {2, 4, 8}))
                    .map(transforms::Stack<>());
  CHECK(mapped.size().value() == 2);
  Example<> second = mapped.get(1);
  CHECK(equal(second.target, labels[1]));
  Tensor expected = (images[1] * 2 - tensor<float>({1, 2, 3}, {3, 1, 1})) / tensor<float>({2, 4, 8}, {3, 1, 1});
  CHECK(equal(second.data, expected));
  // The source is shared, not copied; map() leaves it as it was.
  CHECK(equal(base.get(1).data, images[1]));
  CHECK(mapped.dataset()->size() == 2);

  CHECK(equal(base.map(transforms::Normalize<>(1.0, 2.0)).get(0).data, (images[0] - 1) / 2));
  CHECK_THROWS_WITH(base.map(transforms::Normalize<>(0.5, 0.0)), Contains("std 0 of channel 0 is zero"));
  CHECK_THROWS_WITH(base.map(Transform()), Contains("the transform is empty"));
  CHECK_THROWS_WITH(datasets::MapDataset(nullptr), Contains("the dataset is null"));
}
