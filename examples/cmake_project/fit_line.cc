// Fits y = 3x - 1 from noisy samples with Brisk, built by CMake against an installed Brisk
// (examples/cmake_project/CMakeLists.txt: find_package(Brisk), Brisk::brisk). Writes the
// fitted model as a safetensors file and reads it back. Exits non-zero if the fit is off: CI
// runs it (tools/test.sh).
#include <cmath>
#include <cstdio>
#include <string>

#include "brisk/brisk.h"

using namespace brisk;

int main(int argc, char** argv) {
  std::printf("%s\n", cuda::build_info().c_str());
  manual_seed(0);
  Tensor x = randn({256, 1});
  Tensor y = x * 3.0 - 1.0 + randn({256, 1}) * 0.1;

  nn::Linear model(1, 1);
  optim::Adam optimizer(model->parameters(), optim::AdamOptions(0.1));
  for (int step = 0; step < 300; ++step) {
    optimizer.zero_grad();
    Tensor loss = nn::functional::mse_loss(model(x), y);
    loss.backward();
    optimizer.step();
  }

  const std::string path = argc > 1 ? argv[1] : "fit_line.safetensors";
  checkpoint::save_safetensors(path, model->state_dict());
  nn::Linear restored(1, 1);
  restored->load_state_dict(checkpoint::load_safetensors(path).tensors);
  double w = restored->weight.item<float>();
  double b = restored->bias.item<float>();
  std::printf("y = %.3f x + %.3f\n", w, b);
  return std::abs(w - 3) < 0.05 && std::abs(b + 1) < 0.05 ? 0 : 1;
}
