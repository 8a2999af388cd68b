#pragma once
// Replaying one fixture case through one Brisk API variant.
#include <string>

#include "tests/reference/runners.h"

namespace brisk::reference {

// Builds the case's inputs (leaves that require grad where PyTorch's did, then their
// views), runs the variant, and checks its outputs, which of them require grad, and,
// after backward with the case's upstream gradients, every input's gradient.
// Error cases must throw brisk::Error. Returns an empty string when everything
// matches, else what differs first ("output 0: element [1] of [3]: expected ...").
std::string replay(const json& c, const Variant& variant);

}  // namespace brisk::reference
