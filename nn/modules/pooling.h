#pragma once
// Pooling layers over NCHW (or CHW) inputs, as torch.nn.MaxPool2d, AvgPool2d and
// AdaptiveAvgPool2d. An absent stride means stride = kernel_size.
#include <cstdint>
#include <iosfwd>
#include <optional>

#include "nn/module.h"
#include "nn/module_holder.h"
#include "nn/size2.h"
#include "tensor/arg.h"

namespace brisk::nn {

struct MaxPool2dOptions {
  MaxPool2dOptions(Size2 kernel_size) : kernel_size_(kernel_size) {}
  BRISK_ARG(Size2, kernel_size);
  BRISK_ARG(std::optional<Size2>, stride);
  BRISK_ARG(Size2, padding) = 0;
  BRISK_ARG(Size2, dilation) = 1;
  BRISK_ARG(bool, ceil_mode) = false;
};

class MaxPool2dImpl : public Module {
 public:
  explicit MaxPool2dImpl(const MaxPool2dOptions& options_) : options(options_) {}
  explicit MaxPool2dImpl(Size2 kernel_size) : options(kernel_size) {}
  Tensor forward(const Tensor& input) override;
  // The outputs and the int64 positions of the maxima (h * W + w within each input plane).
  std::pair<Tensor, Tensor> forward_with_indices(const Tensor& input) const;
  void pretty_print(std::ostream& stream) const override;

  MaxPool2dOptions options;
};

BRISK_MODULE(MaxPool2d);

struct AvgPool2dOptions {
  AvgPool2dOptions(Size2 kernel_size) : kernel_size_(kernel_size) {}
  BRISK_ARG(Size2, kernel_size);
  BRISK_ARG(std::optional<Size2>, stride);
  BRISK_ARG(Size2, padding) = 0;
  BRISK_ARG(bool, ceil_mode) = false;
  BRISK_ARG(bool, count_include_pad) = true;
  BRISK_ARG(std::optional<int64_t>, divisor_override);
};

class AvgPool2dImpl : public Module {
 public:
  explicit AvgPool2dImpl(const AvgPool2dOptions& options_) : options(options_) {}
  explicit AvgPool2dImpl(Size2 kernel_size) : options(kernel_size) {}
  Tensor forward(const Tensor& input) override;
  void pretty_print(std::ostream& stream) const override;

  AvgPool2dOptions options;
};

BRISK_MODULE(AvgPool2d);

struct AdaptiveAvgPool2dOptions {
  AdaptiveAvgPool2dOptions(Size2 output_size) : output_size_(output_size) {}
  BRISK_ARG(Size2, output_size);
};

class AdaptiveAvgPool2dImpl : public Module {
 public:
  explicit AdaptiveAvgPool2dImpl(const AdaptiveAvgPool2dOptions& options_) : options(options_) {}
  explicit AdaptiveAvgPool2dImpl(Size2 output_size) : options(output_size) {}
  Tensor forward(const Tensor& input) override;
  void pretty_print(std::ostream& stream) const override;

  AdaptiveAvgPool2dOptions options;
};

BRISK_MODULE(AdaptiveAvgPool2d);

}  // namespace brisk::nn
