#pragma once
// How a batch is cut into microbatches: every tensor along dim 0 into `m` consecutive parts
// whose sizes differ by at most one, the larger first (torch.tensor_split's rule, which
// torch.distributed.pipelining uses; torch.chunk would give fewer than m parts for 5 rows
// in 4). 10 rows in 4: 3, 3, 2, 2.
//
//   std::vector<std::vector<Tensor>> mbs = split_microbatches({x, y}, 4);
//   mbs[1][0]   // rows 3..5 of x, a view
#include <cstdint>
#include <vector>

#include "tensor/tensor.h"

namespace brisk::dist::pipeline {

// The number of rows of each microbatch of a batch of `rows`; an error when rows < m.
std::vector<int64_t> microbatch_rows(int64_t rows, int m);

// result[i][j]: microbatch i of tensors[j]. Every tensor needs the same dim-0 size.
std::vector<std::vector<Tensor>> split_microbatches(const std::vector<Tensor>& tensors, int m);

}  // namespace brisk::dist::pipeline
