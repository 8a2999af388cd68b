#pragma once
// Parameter initialization, as torch.nn.init. Each function fills its tensor in place
// without recording history, draws from `generator` (the default one when null) and
// returns the tensor.
//
//   nn::init::kaiming_normal_(conv->weight, 0.0, nn::init::FanMode::FanOut, nn::init::Nonlinearity::ReLU);
//   nn::init::zeros_(conv->bias);
#include <cstdint>
#include <utility>

#include "tensor/generator.h"
#include "tensor/tensor.h"

namespace brisk::nn::init {

enum class FanMode { FanIn, FanOut };
enum class Nonlinearity { Linear, Conv2d, Sigmoid, Tanh, ReLU, LeakyReLU, SELU };

// The recommended gain for a nonlinearity (torch.nn.init.calculate_gain); `param` is the
// negative slope of LeakyReLU.
double calculate_gain(Nonlinearity nonlinearity, double param = 0.01);
// (fan_in, fan_out) of a weight with at least 2 dims: [out, in, *receptive field].
std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor);

Tensor uniform_(Tensor tensor, double low = 0.0, double high = 1.0, Generator* generator = nullptr);
Tensor normal_(Tensor tensor, double mean = 0.0, double std = 1.0, Generator* generator = nullptr);
Tensor constant_(Tensor tensor, Scalar value);
Tensor zeros_(Tensor tensor);
Tensor ones_(Tensor tensor);

// U(-bound, bound) with bound = gain * sqrt(3 / fan), gain = calculate_gain(nonlinearity, a).
Tensor kaiming_uniform_(Tensor tensor, double a = 0.0, FanMode mode = FanMode::FanIn,
                        Nonlinearity nonlinearity = Nonlinearity::LeakyReLU, Generator* generator = nullptr);
// N(0, std^2) with std = gain / sqrt(fan).
Tensor kaiming_normal_(Tensor tensor, double a = 0.0, FanMode mode = FanMode::FanIn,
                       Nonlinearity nonlinearity = Nonlinearity::LeakyReLU, Generator* generator = nullptr);
// U(-bound, bound) with bound = gain * sqrt(6 / (fan_in + fan_out)).
Tensor xavier_uniform_(Tensor tensor, double gain = 1.0, Generator* generator = nullptr);
// N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out)).
Tensor xavier_normal_(Tensor tensor, double gain = 1.0, Generator* generator = nullptr);

}  // namespace brisk::nn::init
