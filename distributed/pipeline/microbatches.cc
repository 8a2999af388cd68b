#include "distributed/pipeline/microbatches.h"

#include "tensor/error.h"

namespace brisk::dist::pipeline {

std::vector<int64_t> microbatch_rows(int64_t rows, int m) {
  BRISK_CHECK(m >= 1 && rows >= m, "split_microbatches: {} rows cannot make {} microbatches (one row at least each)",
              rows, m);
  std::vector<int64_t> sizes(m, rows / m);
  for (int64_t i = 0; i < rows % m; ++i) ++sizes[i];
  return sizes;
}

std::vector<std::vector<Tensor>> split_microbatches(const std::vector<Tensor>& tensors, int m) {
  std::vector<std::vector<Tensor>> microbatches(m);
  if (tensors.empty()) return microbatches;
  for (const Tensor& t : tensors) {
    BRISK_CHECK(t.defined() && t.dim() >= 1 && t.size(0) == tensors[0].size(0),
                "split_microbatches: every tensor needs dim 0 of size {} (the first's), got shape [{}]",
                tensors[0].size(0), t.defined() ? fmt::format("{}", fmt::join(t.sizes(), ", ")) : "undefined");
  }
  const std::vector<int64_t> rows = microbatch_rows(tensors[0].size(0), m);
  for (const Tensor& t : tensors) {
    int64_t start = 0;
    for (int i = 0; i < m; ++i) {
      microbatches[i].push_back(t.narrow(0, start, rows[i]));
      start += rows[i];
    }
  }
  return microbatches;
}

}  // namespace brisk::dist::pipeline
