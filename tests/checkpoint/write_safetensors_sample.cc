// Writes dtype_samples() as a safetensors file, for the manual check that Python reads what
// Brisk writes (see tools/fixtures/gen_safetensors_fixtures.py):
//   bazel run //tests/checkpoint:write_safetensors_sample -- /tmp/brisk_dtypes.safetensors
#include <cstdio>

#include "checkpoint/safetensors.h"
#include "tests/checkpoint/dtype_samples.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT.safetensors\n", argv[0]);
    return 2;
  }
  brisk::checkpoint::save_safetensors(argv[1], brisk::testing::dtype_samples(),
                                      {{"format", "pt"}, {"source", "safetensors fixture"}});
  std::printf("wrote %s\n", argv[1]);
  return 0;
}
