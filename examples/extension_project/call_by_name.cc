// Calls an op of Brisk's example extension by its name only (library::find_op), referencing
// none of the extension's symbols: a program linked to an extension of brisk_add_extension
// loads it all the same, with its ops registered (examples/extension_project/CMakeLists.txt).
// Exits non-zero if the op is missing or its result is off: CI runs it (tools/test_examples.sh).
#include <cstdio>

#include "brisk/brisk.h"

using namespace brisk;

int main() {
  static const auto op =
      library::find_op<Tensor(const Tensor&, const Tensor&, double, double)>("examples::fused_bias_leaky_relu");
  // scale * leaky_relu(x + bias, slope) of x = [[-1, 2]], bias = [0, 1], slope 0.5, scale 2.
  Tensor y = op(tensor({{-1.0f, 2.0f}}).to(sim_device(2)), tensor({0.0f, 1.0f}).to(sim_device(2)), 0.5, 2.0);
  std::printf("%s on %s: %s\n", op.name().c_str(), y.device().str().c_str(), y.cpu().str().c_str());
  return y.device() == sim_device(2) && allclose(y.cpu(), tensor({{-1.0f, 6.0f}})) ? 0 : 1;
}
