#include "tensor/error.h"

namespace brisk {

void throw_error(const std::string& message) { throw Error(message); }

}  // namespace brisk
