#pragma once
// The sizes of the GPT reference model (models/gpt.h), set one by one or from a named preset:
//
//   models::GPTConfig config = models::GPTConfig::preset("small").block_size(128);
//
//   preset  n_layer n_head n_embd block_size  parameters
//   tiny          2      2     64         64       0.12M   tests
//   mini          4      4    128        128       0.84M   CI training runs
//   small         6      6    384        256       10.8M
//   base         12     14    896       1024      116.9M   benchmarks
//
// (parameters: 12 n_embd² + 13 n_embd per block, (vocab_size + block_size + 2) n_embd for the
// embeddings and the final LayerNorm; the output head is the token embedding.)
#include <cstdint>
#include <string>
#include <vector>

#include "tensor/arg.h"

namespace brisk::models {

struct GPTConfig {
  BRISK_ARG(int64_t, vocab_size) = 256;  // bytes
  BRISK_ARG(int64_t, block_size) = 64;   // the longest context, in tokens
  BRISK_ARG(int64_t, n_layer) = 2;
  BRISK_ARG(int64_t, n_head) = 2;
  BRISK_ARG(int64_t, n_embd) = 64;  // a multiple of n_head

 public:
  // The preset `name` of the table above; raises brisk::Error naming the presets for another.
  static GPTConfig preset(const std::string& name);
  static std::vector<std::string> preset_names();

  // The model's parameter count, by the formula above.
  int64_t parameter_count() const;
  // Raises brisk::Error naming the setting that cannot make a model: a size below 1, an n_embd
  // that n_head does not divide.
  void check() const;
};

}  // namespace brisk::models
