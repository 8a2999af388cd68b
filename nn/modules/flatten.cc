#include "nn/modules/flatten.h"

#include <ostream>

#include "nn/functional.h"

namespace brisk::nn {

Tensor FlattenImpl::forward(const Tensor& input) { return functional::flatten(input, start_dim, end_dim); }

void FlattenImpl::pretty_print(std::ostream& stream) const {
  stream << "Flatten(start_dim=" << start_dim << ", end_dim=" << end_dim << ")";
}

}  // namespace brisk::nn
