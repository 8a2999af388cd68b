// The example at the top of distributed/zero2/zero2_data_parallel.h, statement for statement,
// in a world of one (file:// instead of the launcher's environment): it trains as the same
// loop with a plain Adam, optim::clip_grad_norm_ and StepLR does.
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "data/data_loader.h"
#include "data/tensor_dataset.h"
#include "distributed/distributed.h"
#include "distributed/zero2/zero2_data_parallel.h"
#include "models/mlp.h"
#include "nn/functional.h"
#include "optim/adam.h"
#include "optim/clip_grad.h"
#include "optim/schedulers/lr_scheduler.h"
#include "tests/scratch_files.h"

using namespace brisk;

TEST_CASE("Zero2DataParallel: the header's example trains as the loop with a plain optimizer does", "[zero2]") {
  std::string store = testing::scratch_dir("zero2_header_example") + "/store";
  manual_seed(7);
  auto dataset = std::make_shared<data::TensorDataset>(randn({16, 784}), randint(0, 10, {16}));
  data::DataLoader loader(dataset, data::DataLoaderOptions().batch_size(8));

  manual_seed(1);
  models::MLP reference(models::MLPOptions(784, 10));
  optim::Adam reference_opt(reference->parameters(), optim::AdamOptions(1e-3));
  optim::StepLR reference_scheduler(reference_opt, 10, 0.5);
  for (auto& batch : loader) {
    reference_opt.zero_grad();
    nn::functional::cross_entropy(reference->forward(batch.data), batch.target).backward();
    optim::clip_grad_norm_(reference->parameters(), 1.0);
    reference_opt.step();
  }
  reference_scheduler.step();

  dist::init_process_group("gloo", "file://" + store, 1, 0);
  manual_seed(1);
  models::MLP model(models::MLPOptions(784, 10));
  auto zero2 = dist::Zero2DataParallel(model);  // default group; broadcasts rank 0's weights
  dist::Zero2Optimizer opt(*zero2, [](std::vector<Tensor> shards) {
    return std::make_unique<optim::Adam>(shards, optim::AdamOptions(1e-3));
  });
  optim::StepLR scheduler(opt.local_optimizer(), 10, 0.5);  // the same on every rank
  const std::vector<float> initial = model->parameters()[0].to_vector<float>();
  for (auto& batch : loader) {  // each rank its own part
    opt.zero_grad();
    Tensor loss = nn::functional::cross_entropy(zero2->forward(batch.data), batch.target);
    loss.backward();           // this rank's shard of the averaged gradients
    opt.clip_grad_norm_(1.0);  // optional: the norm of all shards together
    opt.step();                // steps the shards, all-gathers the parameters
  }
  scheduler.step();
  dist::destroy_process_group();

  const std::vector<Tensor> trained = model->parameters(), expected = reference->parameters();
  REQUIRE(trained.size() == expected.size());
  for (size_t i = 0; i < trained.size(); ++i) {
    CAPTURE(i);
    CHECK_FALSE(trained[i].grad().defined());  // the gradients live in the shards
    const std::vector<float> got = trained[i].to_vector<float>(), want = expected[i].to_vector<float>();
    for (size_t j = 0; j < got.size(); ++j) REQUIRE(got[j] == Approx(want[j]).margin(1e-6));
  }
  CHECK(trained[0].to_vector<float>() != initial);  // it did train
  CHECK(opt.local_optimizer().param_groups()[0].options().get_lr() ==
        reference_opt.param_groups()[0].options().get_lr());
}

TEST_CASE("Zero2DataParallel(model) before init_process_group: an error naming what to call", "[zero2]") {
  models::MLP model(models::MLPOptions(4, 2));
  REQUIRE_FALSE(dist::is_initialized());
  CHECK_THROWS_WITH(dist::Zero2DataParallel(model), Catch::Contains("call dist::init_process_group"));
}
