// How fast the DataLoader feeds a training loop: one shuffled epoch of Fashion-MNIST's 60000
// training images in batches of 256, as raw uint8 batches (default collate: one memcpy per
// example) and through ToTensor + Normalize per example, with 0 and 2 workers.
//
//   bazel run -c opt //tools/bench:data_loader_bench [-- /path/to/fashion-mnist]
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "data/data_loader.h"
#include "data/mnist.h"
#include "data/transform_dataset.h"
#include "data/transforms/compose.h"
#include "data/transforms/normalize.h"
#include "data/transforms/to_tensor.h"
#include "tools/bench/timing.h"

using namespace brisk;
using namespace brisk::data;

namespace {

using bench::ms_since;

void run_epoch(const char* label, std::shared_ptr<const Dataset> dataset, int workers) {
  DataLoader loader(std::move(dataset), DataLoaderOptions().batch_size(256).shuffle(true).seed(0).num_workers(workers));
  auto start = std::chrono::steady_clock::now();
  int64_t examples = 0;
  for (Batch& batch : loader) examples += batch.data.size(0);
  double s = ms_since(start) / 1e3;
  std::printf("%-28s workers=%d  %7.3f s/epoch  %10.0f examples/s  %8.1f us/batch\n", label, workers, s, examples / s,
              1e6 * s / static_cast<double>(loader.size()));
}

}  // namespace

int main(int argc, char** argv) {
  std::string root = argc > 1 ? argv[1] : "/usr/share/datasets/fashion-mnist";
  auto start = std::chrono::steady_clock::now();
  auto mnist = std::make_shared<MNIST>(root, true);
  std::printf("read %lld training images (gzip) in %.3f s\n", static_cast<long long>(mnist->size()),
              ms_since(start) / 1e3);

  auto normalized = std::make_shared<TransformDataset>(mnist, Compose({ToTensor(), Normalize({0.2860}, {0.3530})}));
  for (int workers : {0, 2}) {
    run_epoch("uint8 batches", mnist, workers);
    run_epoch("ToTensor + Normalize", normalized, workers);
  }
  return 0;
}
