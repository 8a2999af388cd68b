// libFuzzer target: the IDX parser (with gzip detection) on arbitrary bytes. A malformed input
// must end in a brisk::Error; anything else (a crash, a sanitizer report, another exception,
// or an array that does not fit the input) is a bug. Built and run as data/fuzz/BUILD says.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "data/gzip.h"
#include "data/idx.h"
#include "tensor/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    brisk::Tensor t = brisk::data::parse_idx(data, size, "fuzz");
    // A plain file holds the header and every element's bytes; gzip decompresses to that.
    if (!brisk::data::is_gzip(data, size)) {
      size_t stored = data[2] == 0x09 ? 1 : data[2] == 0x0b ? 2 : t.element_size();
      if (4 + 4 * static_cast<size_t>(t.dim()) + t.numel() * stored != size) std::abort();
    }
  } catch (const brisk::Error&) {
  }
  return 0;
}
