#include "optim/schedulers/lambda_lr.h"

#include <utility>

#include "tensor/error.h"

namespace brisk::optim {

LambdaLR::LambdaLR(Optimizer& optimizer, std::function<double(int64_t)> lr_lambda)
    : LRScheduler(optimizer, "LambdaLR"), lr_lambda_(std::move(lr_lambda)) {
  BRISK_CHECK(static_cast<bool>(lr_lambda_), "LambdaLR: lr_lambda is empty");
  initial_step();
}

std::vector<double> LambdaLR::get_lr() {
  std::vector<double> lrs;
  for (double base_lr : base_lrs_) lrs.push_back(base_lr * lr_lambda_(last_epoch_));
  return lrs;
}

void LambdaLR::settings_to_json(nlohmann::json& state) const {
  state["lr_lambdas"] = nlohmann::json::array();
  for (size_t i = 0; i < base_lrs_.size(); ++i) state["lr_lambdas"].push_back(nullptr);
}

void LambdaLR::settings_from_json(const nlohmann::json&) {}

}  // namespace brisk::optim
