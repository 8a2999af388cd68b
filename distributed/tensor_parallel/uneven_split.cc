#include "distributed/tensor_parallel/uneven_split.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tensor/error.h"
#include "tensor/native/ops.h"

namespace brisk::dist::tp {

namespace {

int64_t wrap_dim(const Tensor& t, int64_t dim, const char* caller) {
  const int64_t rank = t.dim();
  BRISK_CHECK(rank > 0 && dim >= -rank && dim < rank, "{}: dim {} is out of range for a tensor of shape {}", caller,
              dim, t.describe());
  return dim < 0 ? dim + rank : dim;
}

// `t` extended with zeros along dim to `length` (t itself when it has that length), contiguous.
Tensor pad_to(const Tensor& t, int64_t dim, int64_t length) {
  if (t.size(dim) == length) return native::contiguous(t);
  Shape shape = t.sizes();
  shape[dim] = length - t.size(dim);
  return native::cat({t, native::zeros(shape, t.options())}, dim);
}

// Every rank's size along dim, exchanged through the group.
std::vector<int64_t> exchange_sizes(int64_t mine, ProcessGroup& group) {
  const TensorOptions options = TensorOptions(kInt64).device(group.device());
  Tensor local = native::full({1}, Scalar(mine), options);
  std::vector<Tensor> all;
  for (int r = 0; r < group.size(); ++r) all.push_back(native::empty({1}, options));
  group.all_gather(all, local)->wait();
  std::vector<int64_t> sizes;
  for (const Tensor& t : all) sizes.push_back(t.item<int64_t>());
  return sizes;
}

}  // namespace

int64_t gathered_size(int64_t local_size, ProcessGroup& group) {
  const std::vector<int64_t> sizes = exchange_sizes(local_size, group);
  int64_t total = 0;
  for (int64_t s : sizes) total += s;
  for (int r = 0; r < group.size(); ++r)
    BRISK_CHECK(sizes[r] == split_range(total, group.size(), r).rows,
                "tensor parallel: the ranks hold parts of sizes [{}], which is not torch.chunk's split of {} over {} "
                "ranks",
                fmt::join(sizes, ", "), total, group.size());
  return total;
}

Tensor local_part(const Tensor& full, int64_t dim, const ProcessGroup& group) {
  const int64_t d = wrap_dim(full, dim, "local_part");
  const RowRange range = split_range(full.size(d), group.size(), group.rank());
  return native::contiguous(native::narrow(full, d, range.begin, range.rows));
}

Tensor all_gather_along(const Tensor& local, int64_t dim, ProcessGroup& group, int64_t full_size) {
  const int64_t d = wrap_dim(local, dim, "all_gather_along");
  const int world = group.size();
  if (full_size < 0) full_size = gathered_size(local.size(d), group);
  const RowRange mine = split_range(full_size, world, group.rank());
  BRISK_CHECK(local.size(d) == mine.rows,
              "all_gather_along: rank {} of {} holds {} along dim {} of a tensor {}; its part of {} is {}",
              group.rank(), world, local.size(d), d, local.describe(), full_size, mine.rows);
  const int64_t chunk = (full_size + world - 1) / world;
  Tensor padded = pad_to(local, d, chunk);
  std::vector<Tensor> parts;
  for (int r = 0; r < world; ++r) parts.push_back(native::empty(padded.sizes(), padded.options()));
  group.all_gather(parts, padded)->wait();
  for (int r = 0; r < world; ++r) parts[r] = native::narrow(parts[r], d, 0, split_range(full_size, world, r).rows);
  return native::cat(parts, d);
}

Tensor reduce_scatter_along(const Tensor& full, int64_t dim, ProcessGroup& group) {
  const int64_t d = wrap_dim(full, dim, "reduce_scatter_along");
  const int world = group.size();
  const int64_t chunk = (full.size(d) + world - 1) / world;
  std::vector<Tensor> inputs;
  for (int r = 0; r < world; ++r) {
    const RowRange range = split_range(full.size(d), world, r);
    inputs.push_back(pad_to(native::narrow(full, d, range.begin, range.rows), d, chunk));
  }
  Tensor output = native::empty(inputs[0].sizes(), full.options());
  group.reduce_scatter(output, inputs, ReduceOp::SUM)->wait();
  return native::contiguous(native::narrow(output, d, 0, split_range(full.size(d), world, group.rank()).rows));
}

}  // namespace brisk::dist::tp
