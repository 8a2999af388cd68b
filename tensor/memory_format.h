#pragma once
// Memory formats: the order in which a dense tensor lays out its dims, as PyTorch's
// torch.contiguous_format, torch.channels_last and torch.preserve_format (libtorch's
// at::MemoryFormat). A format is not stored: it is read from the strides, so every view and
// op sees the same answer (docs/tensors.md, "Memory formats").
#include <cstdint>

#include "tensor/shape.h"

namespace brisk {

enum class MemoryFormat {
  Contiguous,    // row-major: [N, C, H, W] with W innermost
  ChannelsLast,  // a 4-D [N, C, H, W] stored as N, H, W, C (C innermost): what NHWC kernels read
  Preserve,      // in clone(), empty_like(), to(): the source's layout (its strides when dense)
};

// libtorch's spellings: torch::MemoryFormat::ChannelsLast, at::MemoryFormat::Contiguous.
constexpr MemoryFormat kContiguousFormat = MemoryFormat::Contiguous;
constexpr MemoryFormat kChannelsLast = MemoryFormat::ChannelsLast;
constexpr MemoryFormat kPreserveFormat = MemoryFormat::Preserve;

// "torch.channels_last": PyTorch's printed names.
const char* memory_format_name(MemoryFormat format);

// The strides of a dense tensor of `shape` in `format` (Contiguous or ChannelsLast, which
// needs a 4-D shape; `op` names the caller in the error).
Shape strides_in_format(const Shape& shape, MemoryFormat format, const char* op);

// Whether `sizes`/`strides` are dense in `format`; the strides of size-1 dims do not matter,
// so a [N, C, 1, 1] tensor is in both formats (as PyTorch). Preserve is no layout: false.
bool is_contiguous_in(const Shape& sizes, const Shape& strides, MemoryFormat format);

// PyTorch's suggest_memory_format(): ChannelsLast for a 4-D tensor whose strides order its
// dims as N, H, W, C (dense or not), Contiguous otherwise and in ambiguous cases.
MemoryFormat suggest_memory_format(const Shape& sizes, const Shape& strides);

// Whether the elements fill a block of memory exactly once in some order of the dims (a
// permutation of a dense tensor): then a copy may keep the strides as they are.
bool is_non_overlapping_and_dense(const Shape& sizes, const Shape& strides);

}  // namespace brisk
