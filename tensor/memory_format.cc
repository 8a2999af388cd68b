#include "tensor/memory_format.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "tensor/error.h"

namespace brisk {
namespace {

// The dims of a 4-D tensor from innermost to outermost in channels-last order.
const std::vector<int64_t> kChannelsLastOrder{1, 3, 2, 0};

}  // namespace

const char* memory_format_name(MemoryFormat format) {
  switch (format) {
    case MemoryFormat::Contiguous: return "torch.contiguous_format";
    case MemoryFormat::ChannelsLast: return "torch.channels_last";
    case MemoryFormat::Preserve: return "torch.preserve_format";
  }
  return "?";
}

Shape strides_in_format(const Shape& shape, MemoryFormat format, const char* op) {
  BRISK_CHECK(format != MemoryFormat::Preserve, "{}: torch.preserve_format is not a layout of its own here", op);
  if (format == MemoryFormat::Contiguous) return contiguous_strides(shape);
  BRISK_CHECK(shape.size() == 4, "{}: torch.channels_last needs a 4-D tensor [N, C, H, W], got shape {} (rank {})", op,
              shape, shape.size());
  Shape strides(4);
  int64_t stride = 1;
  for (int64_t d : kChannelsLastOrder) {
    strides[d] = stride;
    stride *= std::max<int64_t>(shape[d], 1);
  }
  return strides;
}

bool is_contiguous_in(const Shape& sizes, const Shape& strides, MemoryFormat format) {
  auto dense_in_order = [&](const std::vector<int64_t>& order) {
    int64_t expected = 1;
    for (int64_t d : order) {
      if (sizes[d] == 1) continue;
      if (strides[d] != expected) return false;
      expected *= sizes[d];
    }
    return true;
  };
  switch (format) {
    case MemoryFormat::Contiguous: {
      std::vector<int64_t> order(sizes.size());
      std::iota(order.rbegin(), order.rend(), 0);
      return shape_numel(sizes) == 0 || dense_in_order(order);
    }
    case MemoryFormat::ChannelsLast: return sizes.size() == 4 && dense_in_order(kChannelsLastOrder);
    case MemoryFormat::Preserve: return false;
  }
  return false;
}

MemoryFormat suggest_memory_format(const Shape& sizes, const Shape& strides) {
  // PyTorch's is_channels_last_strides_2d: the strides grow along C, W, H, N, with its
  // tie-breaks for size-1 dims (an N111 tensor, a 1C1W transpose) falling back to Contiguous.
  if (sizes.size() != 4 || strides[1] == 0) return MemoryFormat::Contiguous;
  int64_t min = 0;
  for (int64_t d : kChannelsLastOrder) {
    if (sizes[d] == 0 || strides[d] < min) return MemoryFormat::Contiguous;
    if (d == 0 && min == strides[1]) return MemoryFormat::Contiguous;
    min = strides[d];
    if (sizes[d] > 1) min *= sizes[d];
  }
  return MemoryFormat::ChannelsLast;
}

bool is_non_overlapping_and_dense(const Shape& sizes, const Shape& strides) {
  if (is_contiguous_in(sizes, strides, MemoryFormat::Contiguous)) return true;
  std::vector<size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return sizes[a] < 2 ? false : sizes[b] < 2 ? true : strides[a] < strides[b];
  });
  int64_t expected = 1;
  for (size_t d : order) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

}  // namespace brisk
