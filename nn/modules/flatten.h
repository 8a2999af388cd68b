#pragma once
// nn::Flatten: merges dims start_dim..end_dim (by default all but the batch dim).
#include <cstdint>
#include <iosfwd>

#include "nn/module.h"
#include "nn/module_holder.h"
#include "tensor/arg.h"

namespace brisk::nn {

struct FlattenOptions {
  BRISK_ARG(int64_t, start_dim) = 1;
  BRISK_ARG(int64_t, end_dim) = -1;
};

class FlattenImpl : public Module {
 public:
  explicit FlattenImpl(int64_t start_dim_ = 1, int64_t end_dim_ = -1) : start_dim(start_dim_), end_dim(end_dim_) {}
  explicit FlattenImpl(const FlattenOptions& options) : FlattenImpl(options.start_dim(), options.end_dim()) {}
  Tensor forward(const Tensor& input) override;
  void pretty_print(std::ostream& stream) const override;

  int64_t start_dim;
  int64_t end_dim;
};

BRISK_MODULE(Flatten);

}  // namespace brisk::nn
