#include "distributed/shard/flat_shard_layout.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tensor/error.h"
#include "tensor/native/ops.h"

namespace brisk::dist {

RowRange dim0_shard(int64_t dim0, int world_size, int rank) {
  BRISK_CHECK(world_size >= 1 && rank >= 0 && rank < world_size, "dim0_shard: rank {} of world size {}", rank,
              world_size);
  const int64_t chunk = (dim0 + world_size - 1) / world_size;
  const int64_t begin = std::min(dim0, chunk * rank);
  return {begin, std::min(dim0, begin + chunk) - begin};
}

FlatShardLayout::FlatShardLayout(std::vector<Shape> shapes, int world_size)
    : shapes_(std::move(shapes)), world_size_(world_size) {
  BRISK_CHECK(world_size_ >= 1, "FlatShardLayout: world size {} (must be at least 1)", world_size_);
  for (const Shape& shape : shapes_) {
    const int64_t dim0 = shape.empty() ? 1 : shape[0];
    const int64_t row = shape.empty() ? 1 : shape_numel(Shape(shape.begin() + 1, shape.end()));
    offsets_.push_back(shard_numel_);
    chunk_rows_.push_back((dim0 + world_size_ - 1) / world_size_);
    row_numel_.push_back(row);
    shard_numel_ += chunk_rows_.back() * row;
  }
}

RowRange FlatShardLayout::rows(size_t i, int rank) const {
  const Shape& s = shape(i);
  return dim0_shard(s.empty() ? 1 : s[0], world_size_, rank);
}

Shape FlatShardLayout::shard_shape(size_t i, int rank) const {
  Shape s = shape(i);
  if (s.empty()) return {rows(i, rank).rows};
  s[0] = rows(i, rank).rows;
  return s;
}

void FlatShardLayout::check_buffer(const Tensor& buffer, int64_t numel, const char* what) const {
  BRISK_CHECK(buffer.defined() && buffer.dim() == 1 && buffer.numel() == numel && buffer.is_contiguous(),
              "FlatShardLayout::{}: the buffer must be 1-D, contiguous, with {} elements; got {}", what, numel,
              buffer.defined() ? buffer.describe() : "an undefined tensor");
}

void FlatShardLayout::check_full(const std::vector<Tensor>& full, const char* what) const {
  BRISK_CHECK(full.size() == size(), "FlatShardLayout::{}: {} tensors for a layout of {}", what, full.size(), size());
  for (size_t i = 0; i < full.size(); ++i)
    BRISK_CHECK(full[i].defined() && full[i].sizes() == shape(i),
                "FlatShardLayout::{}: tensor {} is {}, the layout expects shape [{}]", what, i,
                full[i].defined() ? full[i].describe() : "undefined", fmt::join(shape(i), ", "));
}

std::vector<Tensor> FlatShardLayout::shard_views(const Tensor& shard_buffer, int rank) const {
  check_buffer(shard_buffer, shard_numel_, "shard_views");
  std::vector<Tensor> views;
  for (size_t i = 0; i < size(); ++i) {
    const Shape shard = shard_shape(i, rank);
    views.push_back(native::view(native::narrow(shard_buffer, 0, offset(i), shape_numel(shard)), shard));
  }
  return views;
}

std::vector<Tensor> FlatShardLayout::rank_chunks(const Tensor& gathered) const {
  check_buffer(gathered, gathered_numel(), "rank_chunks");
  std::vector<Tensor> chunks;
  for (int r = 0; r < world_size_; ++r) chunks.push_back(native::narrow(gathered, 0, r * shard_numel_, shard_numel_));
  return chunks;
}

// A full tensor's rows of one rank, as a view (a 0-d tensor as one row).
static Tensor rows_of(const Tensor& full, RowRange range) {
  Tensor t = full.dim() == 0 ? native::view(full, {1}) : full;
  return native::narrow(t, 0, range.begin, range.rows);
}

void FlatShardLayout::pack(const std::vector<Tensor>& full, const Tensor& gathered) const {
  check_full(full, "pack");
  const std::vector<Tensor> chunks = rank_chunks(gathered);
  for (int r = 0; r < world_size_; ++r) {
    const std::vector<Tensor> shards = shard_views(chunks[static_cast<size_t>(r)], r);
    for (size_t i = 0; i < size(); ++i) {
      Tensor shard = shards[i];
      native::copy_(shard, rows_of(full[i], rows(i, r)));
      const int64_t used = shard.numel();
      const int64_t padding = chunk_rows(i) * row_numel(i) - used;
      if (padding > 0) {
        Tensor pad = native::narrow(chunks[static_cast<size_t>(r)], 0, offset(i) + used, padding);
        native::fill_(pad, 0);
      }
    }
  }
}

void FlatShardLayout::unpack(const Tensor& gathered, const std::vector<Tensor>& full) const {
  check_full(full, "unpack");
  const std::vector<Tensor> chunks = rank_chunks(gathered);
  for (int r = 0; r < world_size_; ++r) {
    const std::vector<Tensor> shards = shard_views(chunks[static_cast<size_t>(r)], r);
    for (size_t i = 0; i < size(); ++i) {
      Tensor dst = rows_of(full[i], rows(i, r));
      native::copy_(dst, shards[i]);
    }
  }
}

}  // namespace brisk::dist
