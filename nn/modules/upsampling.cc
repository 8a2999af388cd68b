#include "nn/modules/upsampling.h"

#include <ostream>

namespace brisk::nn {

UpsampleImpl::UpsampleImpl(const UpsampleOptions& options_) : options(options_) {
  BRISK_CHECK(options.size().has_value() != options.scale_factor().has_value(),
              "Upsample: give exactly one of size and scale_factor");
}

Tensor UpsampleImpl::forward(const Tensor& input) { return functional::interpolate(input, options); }

void UpsampleImpl::pretty_print(std::ostream& stream) const {
  stream << "Upsample(";
  if (options.size()) stream << fmt::format("size={}", *options.size());
  if (options.scale_factor()) stream << fmt::format("scale_factor={}", *options.scale_factor());
  stream << ", mode=" << options.mode();
  if (options.align_corners()) stream << ", align_corners=" << (*options.align_corners() ? "true" : "false");
  if (options.recompute_scale_factor()) stream << ", recompute_scale_factor=true";
  stream << ")";
}

}  // namespace brisk::nn
