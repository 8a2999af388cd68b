#pragma once
// What the training program's language-model runs share, one process or a (dp, tp, pp)
// layout: the model built from the flags and the held-out loss (language_model_training.h,
// parallel_language_model_training.h).
//
//   std::shared_ptr<models::GPTImpl> model = make_gpt(options, gpt_config(options.gpt_size, options.block_size));
//   double nats = held_out_loss(*model, text.held_out(), options.test_limit, device);
//   spdlog::info("{:.3f} bits per byte", bits_per_byte(nats));
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/gpt.h"
#include "tensor/device.h"
#include "tools/train/train_options.h"

namespace brisk::train {

// Held-out windows per forward.
constexpr int64_t kEvalBatch = 32;

// The preset `size`, with its block_size replaced when block_size > 0.
models::GPTConfig gpt_config(const std::string& size, int64_t block_size);
// --model's language model (models/registry.h), drawn from brisk::default_generator().
std::shared_ptr<models::GPTImpl> make_gpt(const TrainOptions& options, const models::GPTConfig& config);

// The mean loss (nats per byte) of `model` over the first `limit` (0: all) consecutive windows
// of `bytes`, kEvalBatch windows a forward.
double held_out_loss(models::GPTImpl& model, const std::vector<uint8_t>& bytes, int64_t limit, Device device);

double bits_per_byte(double nats);

// One epoch's log line, the same for one process and a layout: the mean training loss over
// `steps` batches of `bytes_per_step` bytes, the held-out loss (both in nats and bits per byte)
// and the throughput over `seconds`.
void log_epoch(int64_t epoch, int64_t epochs, double train_loss, double held_out, int64_t steps, int64_t bytes_per_step,
               double seconds);

}  // namespace brisk::train
