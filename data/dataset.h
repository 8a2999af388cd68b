#pragma once
// A map-style dataset: a fixed number of examples, each loadable by its index.
#include <cstdint>

#include "data/example.h"

namespace brisk::data {

class Dataset {
 public:
  virtual ~Dataset() = default;

  // Number of examples (len(dataset)).
  virtual int64_t size() const = 0;
  // The example at `index`, in [0, size()); raises brisk::Error for any other index.
  // DataLoader workers call this concurrently from several threads, so it must not modify
  // shared state.
  virtual Example get(int64_t index) const = 0;
};

// Raises brisk::Error unless 0 <= index < size, naming the dataset, e.g.
// "MNIST: index 60000 is out of range for a dataset of 60000 examples".
void check_index(const char* dataset, int64_t index, int64_t size);

}  // namespace brisk::data
