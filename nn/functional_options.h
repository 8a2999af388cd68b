#pragma once
// libtorch's option-object spellings of the calls of nn/functional.h, for code written against
// torch::nn::functional:
//
//   namespace F = brisk::nn::functional;
//   x = F::dropout(x, F::DropoutFuncOptions().p(0.5).training(is_training()));
//   x = F::max_pool2d(x, F::MaxPool2dFuncOptions(2).stride(2));
//   Tensor loss = F::cross_entropy(logits, labels, F::CrossEntropyFuncOptions().label_smoothing(0.1));
//
// Each overload calls the function of nn/functional.h of the same name with the options'
// values; the defaults are libtorch's (which are PyTorch's). Where libtorch's FuncOptions is
// the layer's options type, it is the same alias here.
#include <cstdint>
#include <optional>
#include <utility>

#include "nn/functional.h"
#include "nn/modules/activation.h"
#include "nn/modules/loss.h"
#include "nn/modules/pooling.h"
#include "nn/size2.h"
#include "tensor/arg.h"
#include "tensor/dtype.h"
#include "tensor/generator.h"
#include "tensor/shape.h"
#include "tensor/tensor.h"

namespace brisk::nn::functional {

// ---- The layers' options, under libtorch's functional names ----
using CrossEntropyFuncOptions = CrossEntropyLossOptions;
using NLLLossFuncOptions = NLLLossOptions;
using MSELossFuncOptions = MSELossOptions;
using MaxPool2dFuncOptions = MaxPool2dOptions;
using AvgPool2dFuncOptions = AvgPool2dOptions;
using AdaptiveAvgPool2dFuncOptions = AdaptiveAvgPool2dOptions;
using InterpolateFuncOptions = InterpolateOptions;
using GELUFuncOptions = GELUOptions;
using LeakyReLUFuncOptions = LeakyReLUOptions;
using ELUFuncOptions = ELUOptions;
using SoftplusFuncOptions = SoftplusOptions;

// ---- Options of the functional calls only ----
struct DropoutFuncOptions {
  BRISK_ARG(double, p) = 0.5;
  // False: the identity (pass the module's is_training()).
  BRISK_ARG(bool, training) = true;
  // Not owned. Null: the default generator. (Brisk's; libtorch draws from its default one.)
  BRISK_ARG(Generator*, generator) = nullptr;
};
using Dropout2dFuncOptions = DropoutFuncOptions;

struct BatchNormFuncOptions {
  BRISK_ARG(Tensor, weight);
  BRISK_ARG(Tensor, bias);
  BRISK_ARG(bool, training) = false;
  BRISK_ARG(double, momentum) = 0.1;
  BRISK_ARG(double, eps) = 1e-5;
  // Applied to the result in the same kernel (nn::functional::batch_norm).
  BRISK_ARG(FusedActivation, activation) = FusedActivation::None;
};

struct LayerNormFuncOptions {
  LayerNormFuncOptions(Shape normalized_shape) : normalized_shape_(std::move(normalized_shape)) {}
  BRISK_ARG(Shape, normalized_shape);
  BRISK_ARG(Tensor, weight);
  BRISK_ARG(Tensor, bias);
  BRISK_ARG(double, eps) = 1e-5;
};

struct GroupNormFuncOptions {
  GroupNormFuncOptions(int64_t num_groups) : num_groups_(num_groups) {}
  BRISK_ARG(int64_t, num_groups);
  BRISK_ARG(Tensor, weight);
  BRISK_ARG(Tensor, bias);
  BRISK_ARG(double, eps) = 1e-5;
};

// dim, and the dtype the input is converted to first (as torch.softmax's dtype argument).
struct SoftmaxFuncOptions {
  SoftmaxFuncOptions(int64_t dim) : dim_(dim) {}
  BRISK_ARG(int64_t, dim);
  BRISK_ARG(std::optional<DType>, dtype);
};
using LogSoftmaxFuncOptions = SoftmaxFuncOptions;

// Size: int64_t for conv1d, Size2 for conv2d. The bias travels in the options, as libtorch's.
template <typename Size>
struct ConvFuncOptions {
  BRISK_ARG(Tensor, bias);
  BRISK_ARG(Size, stride) = 1;
  BRISK_ARG(Size, padding) = 0;
  BRISK_ARG(Size, dilation) = 1;
  BRISK_ARG(int64_t, groups) = 1;
};
using Conv1dFuncOptions = ConvFuncOptions<int64_t>;
using Conv2dFuncOptions = ConvFuncOptions<Size2>;

struct ConvTranspose2dFuncOptions {
  BRISK_ARG(Tensor, bias);
  BRISK_ARG(Size2, stride) = 1;
  BRISK_ARG(Size2, padding) = 0;
  BRISK_ARG(Size2, output_padding) = 0;
  BRISK_ARG(int64_t, groups) = 1;
  BRISK_ARG(Size2, dilation) = 1;
};

struct EmbeddingFuncOptions {
  BRISK_ARG(std::optional<int64_t>, padding_idx);
};

// ---- The calls (nn/functional/options.cc) ----
Tensor dropout(const Tensor& input, const DropoutFuncOptions& options);
Tensor dropout2d(const Tensor& input, const Dropout2dFuncOptions& options);
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& options);
Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options);
Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options);
Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options);
Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options);
Tensor gelu(const Tensor& input, const GELUFuncOptions& options);
Tensor leaky_relu(const Tensor& input, const LeakyReLUFuncOptions& options);
Tensor elu(const Tensor& input, const ELUFuncOptions& options);
Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options);
Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options);
Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options);
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const ConvTranspose2dFuncOptions& options);
Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options);
Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options);
Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options);
Tensor embedding(const Tensor& indices, const Tensor& weight, const EmbeddingFuncOptions& options);
Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyFuncOptions& options);
Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options);
Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options);

}  // namespace brisk::nn::functional
