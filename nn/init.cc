#include "nn/init.h"

#include <cmath>

#include "autograd/grad_mode.h"

namespace brisk::nn::init {

double calculate_gain(Nonlinearity nonlinearity, double param) {
  switch (nonlinearity) {
    case Nonlinearity::Linear:
    case Nonlinearity::Conv2d:
    case Nonlinearity::Sigmoid: return 1.0;
    case Nonlinearity::Tanh: return 5.0 / 3.0;
    case Nonlinearity::ReLU: return std::sqrt(2.0);
    case Nonlinearity::LeakyReLU: return std::sqrt(2.0 / (1.0 + param * param));
    case Nonlinearity::SELU: return 3.0 / 4.0;
  }
  return 1.0;
}

std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor) {
  BRISK_CHECK(tensor.dim() >= 2,
              "calculate_fan_in_and_fan_out: fan in and fan out can not be computed for a tensor with fewer than 2 "
              "dims, got {}",
              tensor.describe());
  int64_t receptive_field = 1;
  for (int64_t d = 2; d < tensor.dim(); ++d) receptive_field *= tensor.size(d);
  return {tensor.size(1) * receptive_field, tensor.size(0) * receptive_field};
}

namespace {

int64_t fan(const Tensor& tensor, FanMode mode) {
  auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  return mode == FanMode::FanIn ? fan_in : fan_out;
}

}  // namespace

Tensor uniform_(Tensor tensor, double low, double high, Generator* generator) {
  NoGradGuard no_grad;
  tensor.uniform_(low, high, generator);
  return tensor;
}

Tensor normal_(Tensor tensor, double mean, double std, Generator* generator) {
  NoGradGuard no_grad;
  tensor.normal_(mean, std, generator);
  return tensor;
}

Tensor constant_(Tensor tensor, Scalar value) {
  NoGradGuard no_grad;
  tensor.fill_(value);
  return tensor;
}

Tensor zeros_(Tensor tensor) { return constant_(tensor, 0); }
Tensor ones_(Tensor tensor) { return constant_(tensor, 1); }

Tensor kaiming_uniform_(Tensor tensor, double a, FanMode mode, Nonlinearity nonlinearity, Generator* generator) {
  if (tensor.numel() == 0) return tensor;
  double std = calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(fan(tensor, mode)));
  double bound = std::sqrt(3.0) * std;
  return uniform_(tensor, -bound, bound, generator);
}

Tensor kaiming_normal_(Tensor tensor, double a, FanMode mode, Nonlinearity nonlinearity, Generator* generator) {
  if (tensor.numel() == 0) return tensor;
  double std = calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(fan(tensor, mode)));
  return normal_(tensor, 0.0, std, generator);
}

Tensor xavier_uniform_(Tensor tensor, double gain, Generator* generator) {
  auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  double std = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
  double bound = std::sqrt(3.0) * std;
  return uniform_(tensor, -bound, bound, generator);
}

Tensor xavier_normal_(Tensor tensor, double gain, Generator* generator) {
  auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  double std = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
  return normal_(tensor, 0.0, std, generator);
}

}  // namespace brisk::nn::init
