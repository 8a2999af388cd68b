#include "data/transforms/to_tensor.h"

#include <array>

#include "tensor/native/ops.h"

namespace brisk::data {
namespace {

// byte / 255 computed in float32 as PyTorch's div does, looked up instead of divided.
const std::array<float, 256>& unit_scale() {
  static const std::array<float, 256> table = [] {
    std::array<float, 256> t{};
    for (int i = 0; i < 256; ++i) t[i] = static_cast<float>(i) / 255.0f;
    return t;
  }();
  return table;
}

// uint8 HWC on the CPU to float32 CHW in one pass.
Tensor bytes_to_chw(const Tensor& hwc) {
  Tensor src = hwc.contiguous();
  int64_t height = src.size(0), width = src.size(1), channels = src.size(2);
  Tensor out = native::empty({channels, height, width}, kFloat32);
  const uint8_t* in = src.data_ptr<uint8_t>();
  float* dst = out.data_ptr<float>();
  const float* scale = unit_scale().data();
  int64_t plane = height * width;
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t p = 0; p < plane; ++p) dst[c * plane + p] = scale[in[p * channels + c]];
  }
  return out;
}

}  // namespace

Tensor ToTensor::operator()(const Tensor& image) const {
  BRISK_CHECK(image.defined() && (image.dim() == 2 || image.dim() == 3),
              "ToTensor: expected an image [H, W] or [H, W, C], got {}",
              image.defined() ? image.describe() : "an undefined tensor");
  Tensor hwc = image.dim() == 2 ? image.unsqueeze(2) : image;
  if (image.dtype() != kUInt8) return hwc.permute({2, 0, 1}).contiguous();
  if (image.is_cpu()) return bytes_to_chw(hwc);
  return hwc.permute({2, 0, 1}).to(kFloat32).div(255);
}

}  // namespace brisk::data
