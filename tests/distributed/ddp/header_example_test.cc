// The example at the top of distributed/ddp/distributed_data_parallel.h, statement for
// statement, in a world of one (file:// instead of the launcher's environment): it trains
// exactly as the same loop without DDP does, and joins.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

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

TEST_CASE("DistributedDataParallel: the header's example trains as the loop without DDP does", "[ddp]") {
  std::string store = testing::scratch_dir("ddp_header_example") + "/store";
  manual_seed(7);
  auto dataset = std::make_shared<data::TensorDataset>(randn({16, 784}), randint(0, 10, {16}));
  data::DataLoader loader(dataset, data::DataLoaderOptions().batch_size(8));

  // The reference: the same model, initialized from the same seed, trained without DDP.
  manual_seed(1);
  models::MLP reference(models::MLPOptions(784, 10));
  optim::SGD reference_opt(reference->parameters(), optim::SGDOptions(0.1));
  for (auto& batch : loader) {
    reference_opt.zero_grad();
    nn::functional::cross_entropy(reference->forward(batch.data), batch.target).backward();
    reference_opt.step();
  }

  dist::init_process_group("gloo", "file://" + store, 1, 0);
  manual_seed(1);
  models::MLP model(models::MLPOptions(784, 10));
  auto ddp = dist::DistributedDataParallel(model);
  optim::SGD opt(ddp->parameters(), optim::SGDOptions(0.1));
  const std::vector<float> initial = model->parameters()[0].to_vector<float>();
  for (auto& batch : loader) {
    opt.zero_grad();
    Tensor loss = nn::functional::cross_entropy(ddp->forward(batch.data), batch.target);
    loss.backward();
    opt.step();
  }
  ddp->join();
  dist::destroy_process_group();

  const std::vector<Tensor> trained = model->parameters(), expected = reference->parameters();
  REQUIRE(trained.size() == expected.size());
  for (size_t i = 0; i < trained.size(); ++i) {
    CAPTURE(i);
    REQUIRE(trained[i].grad().defined());
    CHECK(trained[i].to_vector<float>() == expected[i].to_vector<float>());
  }
  CHECK(trained[0].to_vector<float>() != initial);  // it did train
}

TEST_CASE("DistributedDataParallel(model) before init_process_group: an error naming what to call", "[ddp]") {
  models::MLP model(models::MLPOptions(4, 2));
  REQUIRE_FALSE(dist::is_initialized());
  CHECK_THROWS_WITH(dist::DistributedDataParallel(model), Catch::Contains("call dist::init_process_group"));
}
