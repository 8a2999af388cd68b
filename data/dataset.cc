#include "data/dataset.h"

#include "tensor/error.h"

namespace brisk::data {

void check_index(const char* dataset, int64_t index, int64_t size) {
  BRISK_CHECK(index >= 0 && index < size, "{}: index {} is out of range for a dataset of {} examples", dataset, index,
              size);
}

}  // namespace brisk::data
