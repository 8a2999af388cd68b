// libFuzzer target: the CIFAR-10 record parser (with gzip detection) on arbitrary bytes. A
// malformed input must end in a brisk::Error; anything else (a crash, a sanitizer report,
// another exception, or a result that breaks the format's invariants) is a bug. Built and
// run as data/fuzz/BUILD says.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "data/cifar10_format.h"
#include "data/gzip.h"
#include "tensor/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    brisk::data::LabeledImages parsed = brisk::data::parse_cifar10(data, size, "fuzz");
    int64_t n = parsed.labels.numel();
    if (parsed.images.numel() != n * 32 * 32 * 3) std::abort();
    if (!brisk::data::is_gzip(data, size) && static_cast<size_t>(n * brisk::data::kCifar10RecordBytes) != size) {
      std::abort();
    }
    const int64_t* labels = parsed.labels.data_ptr<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      if (labels[i] < 0 || labels[i] >= brisk::data::kCifar10Classes) std::abort();
    }
  } catch (const brisk::Error&) {
  }
  return 0;
}
