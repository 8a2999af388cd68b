#include "nn/modules/dropout.h"

#include <ostream>

#include "nn/functional.h"

namespace brisk::nn {

template <bool Channels>
DropoutNdImpl<Channels>::DropoutNdImpl(const DropoutOptions& options_) : options(options_) {
  BRISK_CHECK(options.p() >= 0.0 && options.p() <= 1.0, "{}: probability has to be between 0 and 1, but got {}", name(),
              options.p());
}

template <bool Channels>
Tensor DropoutNdImpl<Channels>::forward(const Tensor& input) {
  return (Channels ? functional::dropout2d : functional::dropout)(input, options.p(), is_training(),
                                                                  options.generator());
}

template <bool Channels>
void DropoutNdImpl<Channels>::pretty_print(std::ostream& stream) const {
  stream << name() << "(p=" << options.p() << ")";
}

template class DropoutNdImpl<false>;
template class DropoutNdImpl<true>;

}  // namespace brisk::nn
