#pragma once
// Byte-level text for language models: every byte is a token (0..255), so any file works,
// UTF-8 text included, without a tokenizer.
//
//   data::ByteText text = data::ByteText::from_path(data::kDefaultTextPath);  // the last 5% held out
//   Generator gen(seed);
//   data::TokenBatch batch = data::random_windows(text.train(), 32, 128, gen);  // inputs, targets [32, 128]
//   for (int64_t first = 0; first < data::window_count(text.held_out(), 128); first += 32)
//     evaluate(data::consecutive_windows(text.held_out(), 128, first, 32));
//
// A window of block_size + 1 bytes gives inputs (its first block_size bytes) and targets (its
// last block_size: each input's next byte).
#include <cstdint>
#include <string>
#include <vector>

#include "tensor/generator.h"
#include "tensor/tensor.h"

namespace brisk::data {

// Where Debian's `fortunes` package (tools/setup.sh installs it) puts its fortune files: about
// 2.6 MB of English text under the BSD license (docs/training.md, "GPT: a language model over bytes").
inline constexpr const char* kDefaultTextPath = "/usr/share/games/fortunes";

struct TokenBatch {
  Tensor inputs;   // int64 [B, T]
  Tensor targets;  // int64 [B, T], inputs shifted by one
};

class ByteText {
 public:
  // `bytes` with the last `held_out_fraction` of them (rounded down) for evaluation.
  ByteText(std::vector<uint8_t> bytes, double held_out_fraction = 0.05);

  // The bytes of a file, or of a directory: its regular files in name order, concatenated,
  // leaving out symbolic links and `.dat` files (fortune's indexes). Raises brisk::Error naming
  // the path when it cannot be read or holds no bytes.
  static ByteText from_path(const std::string& path, double held_out_fraction = 0.05);

  const std::vector<uint8_t>& train() const { return train_; }
  const std::vector<uint8_t>& held_out() const { return held_out_; }

 private:
  std::vector<uint8_t> train_, held_out_;
};

// `batch` windows of block_size + 1 bytes starting at uniformly drawn offsets of `bytes`
// (drawn from `generator`). Raises brisk::Error when `bytes` is shorter than one window.
TokenBatch random_windows(const std::vector<uint8_t>& bytes, int64_t batch, int64_t block_size, Generator& generator);

// How many whole non-overlapping windows of block_size + 1 bytes `bytes` holds (window i starts
// at byte i * block_size: consecutive windows share one byte, so every byte but the first is
// a target once).
int64_t window_count(const std::vector<uint8_t>& bytes, int64_t block_size);
// Windows first .. first + count - 1 of those (fewer at the end).
TokenBatch consecutive_windows(const std::vector<uint8_t>& bytes, int64_t block_size, int64_t first, int64_t count);

}  // namespace brisk::data
