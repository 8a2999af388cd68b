#pragma once
// How sharded data parallelism (ZeRO-2, fully_shard) and sharded checkpoints split tensors over
// the N ranks of a group. Each tensor is split along dim 0 as torch.chunk and PyTorch's
// fully_shard (Shard(0)) split it: with c = ceil(dim0 / N) rows per chunk, rank r holds rows
// [r*c, min((r+1)*c, dim0)), so the last ranks may hold fewer rows or none. A 0-d tensor is one
// row of one element (rank 0 holds it).
//
// A set of tensors (a ZeRO-2 bucket, a fully_shard unit) travels as one flat buffer per rank so
// that a single all_gather or reduce_scatter moves all of them. Rank r's shard buffer is the
// concatenation, in tensor order, of each tensor's rows of rank r padded to c rows; every rank's
// shard buffer therefore has shard_numel() elements. The gathered buffer is the N shard
// buffers one after another (rank-major): rank_chunks() are all_gather's outputs and
// reduce_scatter's inputs; pack() fills it from full tensors, unpack() copies it into them.
//
//   FlatShardLayout layout({w.sizes(), b.sizes()}, group->size());
//   Tensor gathered = native::empty({layout.gathered_numel()}, options);
//   layout.pack({w.grad(), b.grad()}, gathered);
//   Tensor shard = native::empty({layout.shard_numel()}, options);
//   group->reduce_scatter(shard, layout.rank_chunks(gathered), ReduceOp::AVG)->wait();
//   std::vector<Tensor> grad_shards = layout.shard_views(shard, group->rank());  // [rows, ...] each
//
// Copies go through the tensor library (any device, any strides, dtype conversion included);
// nothing here records autograd history.
#include <cstdint>
#include <vector>

#include "tensor/tensor.h"

namespace brisk::dist {

// Rows [begin, begin + rows) of dim 0.
struct RowRange {
  int64_t begin = 0;
  int64_t rows = 0;
};

// Rank `rank`'s rows of a dim 0 of `dim0` rows split over `world_size` ranks (torch.chunk).
RowRange dim0_shard(int64_t dim0, int world_size, int rank);

class FlatShardLayout {
 public:
  // Throws when world_size < 1.
  FlatShardLayout(std::vector<Shape> shapes, int world_size);

  int world_size() const { return world_size_; }
  size_t size() const { return shapes_.size(); }
  const Shape& shape(size_t i) const { return shapes_.at(i); }

  // Rows per chunk of tensor i (its shard in every rank's buffer, padding included).
  int64_t chunk_rows(size_t i) const { return chunk_rows_.at(i); }
  // Elements per row of tensor i (the product of its sizes after dim 0; 1 for a 0-d tensor).
  int64_t row_numel(size_t i) const { return row_numel_.at(i); }
  RowRange rows(size_t i, int rank) const;
  // {rows(i, rank).rows, sizes after dim 0...}; {1} or {0} for a 0-d tensor.
  Shape shard_shape(size_t i, int rank) const;
  // Where tensor i's chunk starts in a shard buffer (elements).
  int64_t offset(size_t i) const { return offsets_.at(i); }
  int64_t shard_numel() const { return shard_numel_; }
  int64_t gathered_numel() const { return shard_numel_ * world_size_; }

  // Views of rank's shard of every tensor inside its shard buffer (1-D, shard_numel() elements),
  // shaped shard_shape(i, rank).
  std::vector<Tensor> shard_views(const Tensor& shard_buffer, int rank) const;
  // The N chunks of a gathered buffer (1-D, gathered_numel() elements), one per rank.
  std::vector<Tensor> rank_chunks(const Tensor& gathered) const;
  // Copies every full tensor (shaped shape(i)) into the gathered buffer; padding becomes zero.
  void pack(const std::vector<Tensor>& full, const Tensor& gathered) const;
  // Copies the gathered buffer into the full tensors (shaped shape(i), any strides).
  void unpack(const Tensor& gathered, const std::vector<Tensor>& full) const;

 private:
  void check_buffer(const Tensor& buffer, int64_t numel, const char* what) const;
  void check_full(const std::vector<Tensor>& full, const char* what) const;

  std::vector<Shape> shapes_;
  int world_size_;
  std::vector<int64_t> chunk_rows_;
  std::vector<int64_t> row_numel_;
  std::vector<int64_t> offsets_;
  int64_t shard_numel_ = 0;
};

}  // namespace brisk::dist
