#include "tests/models/pattern_weights.h"

#include <string>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"

namespace brisk::test {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// pattern64(numel, k) + offset, rounded to float32.
Tensor pattern_plus(int64_t numel, int64_t k, double offset) {
  std::vector<float> values(static_cast<size_t>(numel));
  for (int64_t i = 0; i < numel; ++i) {
    double v = static_cast<double>((i * 7919 + k * 104729) % 2001 - 1000) / 16000.0;
    values[i] = static_cast<float>(offset + v);
  }
  return tensor(values, {numel});
}

}  // namespace

Tensor pattern(int64_t numel, int64_t k) { return pattern_plus(numel, k, 0.0); }

void set_pattern_weights(nn::Module& model) {
  NoGradGuard no_grad;
  int64_t k = 0;
  for (auto& [name, t] : model.state_dict()) {
    const int64_t index = k++;
    if (!is_floating_point(t.dtype())) continue;
    bool is_scale = t.dim() == 1 && ends_with(name, ".weight");
    double offset = is_scale || ends_with(name, "running_var") ? 1.0 : 0.0;
    t.copy_(pattern_plus(t.numel(), index, offset).reshape(t.sizes()));
  }
}

Tensor pattern_images(int64_t n, int64_t channels, int64_t size) {
  return pattern(n * channels * size * size, 99).mul(16.0).reshape({n, channels, size, size});
}

}  // namespace brisk::test
