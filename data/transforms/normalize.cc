#include "data/transforms/normalize.h"

#include <utility>

#include "tensor/native/ops.h"

namespace brisk::data {
namespace {

// (x - mean) / std in T, as PyTorch computes it with mean and std converted to x's dtype.
template <typename T>
Tensor normalize_cpu(const Tensor& image, const std::vector<double>& mean, const std::vector<double>& std) {
  Tensor src = image.contiguous();
  Tensor out = native::empty(src.sizes(), src.dtype());
  int64_t channels = src.size(-3);
  int64_t plane = src.size(-2) * src.size(-1);
  int64_t images = channels * plane == 0 ? 0 : src.numel() / (channels * plane);
  const T* in = src.data_ptr<T>();
  T* dst = out.data_ptr<T>();
  for (int64_t n = 0; n < images; ++n) {
    for (int64_t c = 0; c < channels; ++c) {
      const T m = static_cast<T>(mean[mean.size() == 1 ? 0 : c]);
      const T s = static_cast<T>(std[std.size() == 1 ? 0 : c]);
      int64_t base = (n * channels + c) * plane;
      for (int64_t p = 0; p < plane; ++p) dst[base + p] = (in[base + p] - m) / s;
    }
  }
  return out;
}

}  // namespace

Normalize::Normalize(std::vector<double> mean, std::vector<double> std) : mean_(std::move(mean)), std_(std::move(std)) {
  BRISK_CHECK(!mean_.empty() && !std_.empty(), "Normalize: mean and std need at least one value each, got {} and {}",
              mean_.size(), std_.size());
  BRISK_CHECK(mean_.size() == std_.size() || mean_.size() == 1 || std_.size() == 1,
              "Normalize: {} means and {} stds: expected as many of each (one per channel) or a single value",
              mean_.size(), std_.size());
  for (size_t c = 0; c < std_.size(); ++c) {
    BRISK_CHECK(std_[c] != 0, "Normalize: std {} of channel {} is zero, which would divide by zero", std_[c], c);
  }
}

Tensor Normalize::operator()(const Tensor& image) const {
  BRISK_CHECK(image.defined() && image.dim() >= 3 && image.is_floating_point(),
              "Normalize: expected a floating-point image [..., C, H, W], got {} (apply ToTensor first)",
              image.defined() ? image.describe() : "an undefined tensor");
  int64_t channels = image.size(-3);
  for (const std::vector<double>* values : {&mean_, &std_}) {
    BRISK_CHECK(values->size() == 1 || static_cast<int64_t>(values->size()) == channels,
                "Normalize: {} means and {} stds for an image {} with {} channels", mean_.size(), std_.size(),
                image.describe(), channels);
  }
  if (image.is_cpu() && image.dtype() == kFloat32) return normalize_cpu<float>(image, mean_, std_);
  if (image.is_cpu() && image.dtype() == kFloat64) return normalize_cpu<double>(image, mean_, std_);
  TensorOptions options = image.options();
  Tensor mean = native::from_vector(mean_, {static_cast<int64_t>(mean_.size()), 1, 1}, options);
  Tensor std = native::from_vector(std_, {static_cast<int64_t>(std_.size()), 1, 1}, options);
  return (image - mean) / std;
}

}  // namespace brisk::data
