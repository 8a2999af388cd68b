#pragma once
// Loss modules over nn::functional's losses: CrossEntropyLoss, NLLLoss and MSELoss.
//
//   nn::CrossEntropyLoss criterion(nn::CrossEntropyLossOptions().label_smoothing(0.1));
//   nn::MSELoss summed(nn::MSELossOptions(kSum));  // libtorch's torch::kSum
//   Tensor loss = criterion(logits, labels);
//
// Their forward takes two tensors: they have no nn::Module::forward(x) (through nn::Module& the
// call is an error naming the loss) and cannot be children of a Sequential.
#include <cstdint>

#include "nn/functional.h"
#include "nn/module.h"
#include "nn/module_holder.h"
#include "tensor/arg.h"

namespace brisk::nn {

struct CrossEntropyLossOptions {
  // Per-class weights [C], or undefined.
  BRISK_ARG(Tensor, weight);
  BRISK_ARG(int64_t, ignore_index) = -100;
  BRISK_ARG(Reduction, reduction) = Reduction::Mean;
  BRISK_ARG(double, label_smoothing) = 0.0;
};

class CrossEntropyLossImpl : public Module {
 public:
  explicit CrossEntropyLossImpl(const CrossEntropyLossOptions& options = {});
  // logits [N, C, ...] or [C]; int64 targets [N, ...] or [], or class probabilities of the
  // logits' shape (nn::functional::cross_entropy).
  Tensor forward(const Tensor& input, const Tensor& target);

  CrossEntropyLossOptions options;
  Tensor weight;  // a buffer when given

 private:
  // Module::forward(input) is not a loss's: named here so that it stays hidden (a call is an
  // error) without the compiler warning that forward(input, target) hides it.
  using Module::forward;
};
BRISK_MODULE(CrossEntropyLoss);

struct NLLLossOptions {
  BRISK_ARG(Tensor, weight);
  BRISK_ARG(int64_t, ignore_index) = -100;
  BRISK_ARG(Reduction, reduction) = Reduction::Mean;
};

class NLLLossImpl : public Module {
 public:
  explicit NLLLossImpl(const NLLLossOptions& options = {});
  // log-probabilities [N, C, ...] or [C], int64 targets [N, ...] or [].
  Tensor forward(const Tensor& input, const Tensor& target);

  NLLLossOptions options;
  Tensor weight;

 private:
  // Module::forward(input) is not a loss's: named here so that it stays hidden (a call is an
  // error) without the compiler warning that forward(input, target) hides it.
  using Module::forward;
};
BRISK_MODULE(NLLLoss);

struct MSELossOptions {
  MSELossOptions(Reduction reduction = Reduction::Mean) : reduction_(reduction) {}
  BRISK_ARG(Reduction, reduction);
};

class MSELossImpl : public Module {
 public:
  explicit MSELossImpl(const MSELossOptions& options_ = {}) : options(options_) {}
  Tensor forward(const Tensor& input, const Tensor& target);

  MSELossOptions options;

 private:
  // Module::forward(input) is not a loss's: named here so that it stays hidden (a call is an
  // error) without the compiler warning that forward(input, target) hides it.
  using Module::forward;
};
BRISK_MODULE(MSELoss);

}  // namespace brisk::nn
