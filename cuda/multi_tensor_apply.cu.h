#pragma once
// The launch of the multi-tensor kernels (the idea of PyTorch's multi_tensor_apply): one
// elementwise update over lists of tensors in a few launches instead of one per tensor.
//
//   multi_tensor_apply<T, 3>({&params, &grads, &buffers}, SgdElement<T>{step}, scope.stream());
//
// runs op(data, i) for every element i of every tensor, where data[d] is the data of the
// tensor's entry in list d (null for an empty list: a buffer the options do not use). The
// lists' data pointers and sizes travel in the kernel's parameter block (TensorChunks), with a
// table that gives each block one (tensor, chunk) pair, a chunk being kChunkElements elements
// of one tensor. A launch takes as many tensors and blocks as the block holds; a tensor whose
// chunks do not all fit is carried into the next launch. Every tensor is walked as one flat
// array (the native op hands over dense tensors each laid out as its parameter).
#include <array>
#include <cstdint>
#include <vector>

#include "cuda/launch.h"

namespace brisk::cuda {

constexpr int kMultiTensorThreads = 512;
constexpr int64_t kChunkElements = 65536;
constexpr int kMaxChunksPerLaunch = 320;
// The bytes of a kernel's parameters CUDA takes on every architecture, less room for the op.
constexpr int kParamBytes = 4096, kOpBytes = 512;

// One launch's tensors (kDepth lists of at most kMaxTensors each) and its blocks' chunks.
template <int kDepth>
struct TensorChunks {
  static constexpr int kMaxTensors = (kParamBytes - kOpBytes - kMaxChunksPerLaunch * (1 + 4)) / (8 * (kDepth + 1));
  static_assert(kMaxTensors <= 256, "block_tensor holds tensor indices as bytes");

  void* data[kDepth][kMaxTensors];
  int64_t numel[kMaxTensors];
  uint8_t block_tensor[kMaxChunksPerLaunch];  // block -> its tensor
  int32_t block_chunk[kMaxChunksPerLaunch];   // block -> the chunk of that tensor
};

template <int kDepth, typename Op>
__global__ void __launch_bounds__(kMultiTensorThreads) multi_tensor_kernel(TensorChunks<kDepth> chunks, Op op) {
  static_assert(sizeof(TensorChunks<kDepth>) + sizeof(Op) <= kParamBytes, "kernel parameters over CUDA's limit");
  const int tensor = chunks.block_tensor[blockIdx.x];
  void* data[kDepth];
  for (int d = 0; d < kDepth; ++d) data[d] = chunks.data[d][tensor];
  const int64_t begin = int64_t(chunks.block_chunk[blockIdx.x]) * kChunkElements;
  const int64_t end = min(begin + kChunkElements, chunks.numel[tensor]);
  for (int64_t i = begin + threadIdx.x; i < end; i += kMultiTensorThreads) op(data, i);
}

// lists: kDepth lists of tensors of element type T, each of lists[0]'s length or empty.
template <typename T, int kDepth, typename Op>
void multi_tensor_apply(const std::array<const std::vector<Tensor>*, kDepth>& lists, const Op& op,
                        cudaStream_t stream) {
  using Chunks = TensorChunks<kDepth>;
  Chunks chunks{};
  int tensors = 0, blocks = 0;
  auto launch = [&] {
    multi_tensor_kernel<kDepth, Op><<<blocks, kMultiTensorThreads, 0, stream>>>(chunks, op);
    BRISK_CUDA_CHECK_LAUNCH();
    blocks = 0;
  };
  const std::vector<Tensor>& first = *lists[0];
  for (size_t i = 0; i < first.size(); ++i) {
    const int64_t n = first[i].numel();
    if (n == 0) continue;
    for (int d = 0; d < kDepth; ++d) {
      chunks.data[d][tensors] = lists[d]->empty() ? nullptr : static_cast<void*>((*lists[d])[i].template data_ptr<T>());
    }
    chunks.numel[tensors] = n;
    ++tensors;
    const int64_t n_chunks = (n + kChunkElements - 1) / kChunkElements;
    for (int64_t c = 0; c < n_chunks; ++c) {
      chunks.block_tensor[blocks] = static_cast<uint8_t>(tensors - 1);
      chunks.block_chunk[blocks] = static_cast<int32_t>(c);
      ++blocks;
      const bool last_chunk = c == n_chunks - 1;
      if (blocks < kMaxChunksPerLaunch && !(last_chunk && tensors == Chunks::kMaxTensors)) continue;
      launch();  // the parameters are copied at the launch, so the table can be refilled now
      if (last_chunk) {
        tensors = 0;
      } else {  // this tensor's remaining chunks go to the next launch, as its tensor 0
        for (int d = 0; d < kDepth; ++d) chunks.data[d][0] = chunks.data[d][tensors - 1];
        chunks.numel[0] = n;
        tensors = 1;
      }
    }
  }
  if (blocks > 0) launch();
}

}  // namespace brisk::cuda
