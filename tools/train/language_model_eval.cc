#include "tools/train/language_model_eval.h"

#include <algorithm>
#include <cmath>

#include <spdlog/spdlog.h>

#include "autograd/grad_mode.h"
#include "data/byte_text.h"
#include "models/registry.h"
#include "tensor/error.h"

namespace brisk::train {

models::GPTConfig gpt_config(const std::string& size, int64_t block_size) {
  models::GPTConfig config = models::GPTConfig::preset(size);
  if (block_size > 0) config.block_size(block_size);
  return config;
}

std::shared_ptr<models::GPTImpl> make_gpt(const TrainOptions& options, const models::GPTConfig& config) {
  return std::dynamic_pointer_cast<models::GPTImpl>(models::make_language_model(options.model, config));
}

double held_out_loss(models::GPTImpl& model, const std::vector<uint8_t>& bytes, int64_t limit, Device device) {
  const int64_t T = model.config.block_size();
  int64_t windows = data::window_count(bytes, T);
  if (limit > 0) windows = std::min(windows, limit);
  BRISK_CHECK(windows > 0, "the held-out text ({} bytes) is shorter than one window of block_size + 1 = {} bytes",
              bytes.size(), T + 1);
  NoGradGuard no_grad;
  model.eval();
  double total = 0;
  for (int64_t first = 0; first < windows; first += kEvalBatch) {
    data::TokenBatch batch = data::consecutive_windows(bytes, T, first, std::min(kEvalBatch, windows - first));
    Tensor loss = models::gpt_loss(model.forward(batch.inputs.to(device)), batch.targets.to(device));
    total += loss.item<double>() * static_cast<double>(batch.inputs.size(0));
  }
  model.train();
  return total / static_cast<double>(windows);
}

double bits_per_byte(double nats) { return nats / std::log(2.0); }

void log_epoch(int64_t epoch, int64_t epochs, double train_loss, double held_out, int64_t steps, int64_t bytes_per_step,
               double seconds) {
  spdlog::info("epoch {}/{}: train loss {:.4f} ({:.3f} bits per byte), held-out loss {:.4f} ({:.3f} bits per "
               "byte), {:.0f} bytes/s, {:.1f} s",
               epoch + 1, epochs, train_loss, bits_per_byte(train_loss), held_out, bits_per_byte(held_out),
               static_cast<double>(steps * bytes_per_step) / std::max(seconds, 1e-9), seconds);
}

}  // namespace brisk::train
