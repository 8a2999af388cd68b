// The example at the top of distributed/ddp/distributed_data_parallel.h, statement for
// statement, in a world of one (file:// instead of the launcher's environment): it compiles,
// trains and joins.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "autograd/ops.h"
#include "data/data_loader.h"
#include "data/tensor_dataset.h"
#include "distributed/ddp/distributed_data_parallel.h"
#include "distributed/distributed.h"
#include "models/mlp.h"
#include "nn/functional.h"
#include "optim/sgd.h"
#include "tests/scratch_files.h"

using namespace brisk;

TEST_CASE("DistributedDataParallel: the header's example runs", "[ddp]") {
  std::string store = testing::scratch_dir("ddp_header_example") + "/store";
  auto dataset = std::make_shared<data::TensorDataset>(randn({16, 784}), full({16}, 3, TensorOptions().dtype(kInt64)));
  data::DataLoader loader(dataset, data::DataLoaderOptions().batch_size(8));

  dist::init_process_group("gloo", "file://" + store, 1, 0);
  models::MLP model(models::MLPOptions(784, 10));
  auto ddp = dist::DistributedDataParallel(model);
  optim::SGD opt(ddp->parameters(), optim::SGDOptions(0.1));
  for (auto& batch : loader) {
    opt.zero_grad();
    Tensor loss = nn::functional::cross_entropy(ddp->forward(batch.data), batch.target);
    loss.backward();
    opt.step();
  }
  ddp->join();

  CHECK(model->parameters()[0].grad().defined());
  dist::destroy_process_group();
}

TEST_CASE("DistributedDataParallel(model) before init_process_group: an error naming what to call", "[ddp]") {
  models::MLP model(models::MLPOptions(4, 2));
  REQUIRE_FALSE(dist::is_initialized());
  CHECK_THROWS_WITH(dist::DistributedDataParallel(model), Catch::Contains("call dist::init_process_group"));
}
