// Checkpoint compatibility: a run resumed with another schedule length, another model or
// another optimizer stops before anything is loaded, with every difference named; the
// program's own metadata is compared entry by entry.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "autograd/ops.h"
#include "checkpoint/checkpoint.h"
#include "checkpoint/compatibility.h"
#include "nn/modules/activation.h"
#include "nn/modules/linear.h"
#include "nn/sequential.h"
#include "optim/adam.h"
#include "optim/schedulers/lr_scheduler.h"
#include "optim/sgd.h"
#include "tests/scratch_files.h"

using namespace brisk;
using namespace brisk::checkpoint;
using Catch::Matchers::Contains;

namespace {

nn::Sequential make_model(int64_t hidden) {
  manual_seed(0);
  return nn::Sequential(nn::Linear(4, hidden), nn::ReLU(), nn::Linear(hidden, 2));
}

// A checkpoint of a run with `hidden` units, SGD and a cosine schedule of `t_max` steps, saved
// and read back from a file.
Checkpoint saved_run(const std::string& path, int64_t hidden, int64_t t_max) {
  nn::Sequential model = make_model(hidden);
  optim::SGD optimizer(model->parameters(), optim::SGDOptions(0.1));
  optim::CosineAnnealingLR scheduler(optimizer, t_max);
  save_checkpoint(path, capture(*model, optimizer, Progress{1, 0, 4}, 0, &scheduler));
  return load_checkpoint(path);
}

}  // namespace

TEST_CASE("check_compatible: the same run resumes; a longer schedule is an error naming T_max, loading nothing") {
  const std::string path = brisk::testing::scratch_dir("compatibility") + "/run.ckpt";
  Checkpoint ckpt = saved_run(path, 8, 8);

  nn::Sequential same = make_model(8);
  optim::SGD same_optimizer(same->parameters(), optim::SGDOptions(0.1));
  optim::CosineAnnealingLR same_schedule(same_optimizer, 8);
  CHECK(compatibility_problems(ckpt, *same, same_optimizer, &same_schedule).empty());
  restore(ckpt, *same, same_optimizer, &same_schedule);
  CHECK(same_schedule.last_epoch() == 0);

  // More epochs: the schedule the checkpoint would impose is not this run's.
  optim::CosineAnnealingLR longer(same_optimizer, 12);
  CHECK_THROWS_WITH(restore(ckpt, *same, same_optimizer, &longer),
                    Contains("checkpoint '" + path + "' cannot resume this run") &&
                        Contains("LR scheduler CosineAnnealingLR: T_max is 8 in the checkpoint, 12 in this run"));
  CHECK(longer.state_dict().at("T_max") == 12);  // left as it was built
}

TEST_CASE("check_compatible: another model and another optimizer, every difference in one error") {
  const std::string path = brisk::testing::scratch_dir("compatibility_model") + "/run.ckpt";
  Checkpoint ckpt = saved_run(path, 8, 8);

  nn::Sequential wider = make_model(16);
  const Tensor before = wider->parameters()[0].clone();
  optim::Adam adam(wider->parameters(), optim::AdamOptions(0.1));
  std::vector<std::string> problems = compatibility_problems(ckpt, *wider, adam);
  CHECK(problems == std::vector<std::string>{
                        "model: 0.weight is [8, 4] in the checkpoint, [16, 4] in this model",
                        "model: 0.bias is [8] in the checkpoint, [16] in this model",
                        "model: 2.weight is [2, 8] in the checkpoint, [2, 16] in this model",
                        "optimizer: the checkpoint's is SGD, this run's Adam",
                        "LR scheduler: the checkpoint has one's state, and this run has no scheduler",
                    });
  CHECK_THROWS_WITH(restore(ckpt, *wider, adam), Contains("model: 0.weight is [8, 4] in the checkpoint"));
  CHECK((wider->parameters()[0] - before).abs().max().item<double>() == 0.0);  // nothing loaded

  nn::Sequential shorter(nn::Linear(4, 8));
  optim::SGD sgd(shorter->parameters(), optim::SGDOptions(0.1));
  optim::CosineAnnealingLR schedule(sgd, 8);
  CHECK(compatibility_problems(ckpt, *shorter, sgd, &schedule) ==
        std::vector<std::string>{
            "model: the checkpoint's 2.weight [2, 8] is not in this model",
            "model: the checkpoint's 2.bias [2] is not in this model",
            "optimizer SGD: parameter group 0 has 4 parameters in the checkpoint, 2 in this run",
        });
}

TEST_CASE("check_metadata: each entry that differs or that the checkpoint lacks is named") {
  Checkpoint ckpt;
  ckpt.path = "old.ckpt";
  ckpt.metadata = {{"model", "lenet"}, {"batch_size", "32"}};
  check_metadata(ckpt, {{"model", "lenet"}, {"batch_size", "32"}});
  check_metadata(ckpt, {{"model", "lenet"}});  // the checkpoint may record more than the run compares
  CHECK_THROWS_WITH(check_metadata(ckpt, {{"model", "mlp"}, {"batch_size", "16"}}),
                    Contains("checkpoint 'old.ckpt': saved with batch_size 32, this run has 16; saved with model "
                             "lenet, this run has mlp (resuming exactly needs the same)"));
  CHECK_THROWS_WITH(check_metadata(ckpt, {{"model", "lenet"}, {"label_smoothing", "0.1"}}),
                    Contains("checkpoint 'old.ckpt': saved without label_smoothing, this run has 0.1"));
}
