#include "models/gpt_config.h"

#include "tensor/error.h"

namespace brisk::models {
namespace {

struct Preset {
  const char* name;
  int64_t n_layer, n_head, n_embd, block_size;
};

constexpr Preset kPresets[] = {
    {"tiny", 2, 2, 64, 64},
    {"mini", 4, 4, 128, 128},
    {"small", 6, 6, 384, 256},
    {"base", 12, 14, 896, 1024},
};

}  // namespace

GPTConfig GPTConfig::preset(const std::string& name) {
  for (const Preset& p : kPresets) {
    if (name == p.name)
      return GPTConfig().n_layer(p.n_layer).n_head(p.n_head).n_embd(p.n_embd).block_size(p.block_size);
  }
  std::string names;
  for (const std::string& known : preset_names()) names += (names.empty() ? "" : ", ") + known;
  BRISK_FAIL("unknown GPT size \"{}\" (expected one of {})", name, names);
}

std::vector<std::string> GPTConfig::preset_names() {
  std::vector<std::string> names;
  for (const Preset& p : kPresets) names.push_back(p.name);
  return names;
}

int64_t GPTConfig::parameter_count() const {
  const int64_t C = n_embd();
  return n_layer() * (12 * C * C + 13 * C) + (vocab_size() + block_size() + 2) * C;
}

void GPTConfig::check() const {
  BRISK_CHECK(vocab_size() > 0 && block_size() > 0 && n_layer() > 0 && n_head() > 0 && n_embd() > 0,
              "GPTConfig: every size must be positive, got vocab_size {}, block_size {}, n_layer {}, n_head {}, "
              "n_embd {}",
              vocab_size(), block_size(), n_layer(), n_head(), n_embd());
  BRISK_CHECK(n_embd() % n_head() == 0, "GPTConfig: n_embd {} is not a multiple of n_head {}", n_embd(), n_head());
}

}  // namespace brisk::models
