// Indexing kernels: index_select copies whole slices; gather and scatter_add walk "lines"
// along `dim`, one per position of the other dims. Indices are bounds-checked before anything
// is written, so a bad index leaves `out`/`self` untouched.
#include <cstring>

#include "tensor/cpu/cpu_backend.h"
#include "tensor/dispatch.h"
#include "tensor/functors/cast.h"
#include "tensor/native/ops.h"
#include "tensor/parallel.h"

namespace brisk::cpu {
namespace {

constexpr int64_t kGrain = 32768;

// Every index must address an element of a dim of `size`.
void check_bounds(const char* op, const int64_t* index, int64_t n, int64_t dim, int64_t size) {
  for (int64_t i = 0; i < n; ++i) {
    BRISK_CHECK(index[i] >= 0 && index[i] < size, "{}: index {} is out of bounds for dim {} with size {}", op, index[i],
                dim, size);
  }
}

// Calls f(line, offsets) for lines [begin, end) of `shape` along `dim`, where a line is one
// position of all other dims and offsets[k] is its start in the k-th tensor's `strides[k]`.
template <size_t N, typename F>
void for_each_line(const Shape& shape, int64_t dim, const std::array<Shape, N>& strides, int64_t begin, int64_t end,
                   const F& f) {
  int64_t ndim = static_cast<int64_t>(shape.size());
  Shape pos(ndim, 0);
  int64_t rest = begin;
  for (int64_t d = ndim - 1; d >= 0; --d) {
    if (d == dim) continue;
    pos[d] = rest % shape[d];
    rest /= shape[d];
  }
  std::array<int64_t, N> offsets{};
  for (size_t k = 0; k < N; ++k) {
    for (int64_t d = 0; d < ndim; ++d) offsets[k] += pos[d] * strides[k][d];
  }
  for (int64_t line = begin; line < end; ++line) {
    f(offsets);
    // Advance the position like an odometer over the dims other than `dim`.
    for (int64_t d = ndim - 1; d >= 0; --d) {
      if (d == dim) continue;
      if (++pos[d] < shape[d]) {
        for (size_t k = 0; k < N; ++k) offsets[k] += strides[k][d];
        break;
      }
      for (size_t k = 0; k < N; ++k) offsets[k] -= (shape[d] - 1) * strides[k][d];
      pos[d] = 0;
    }
  }
}

}  // namespace

void CpuBackend::index_select(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  Tensor idx = native::contiguous(index);
  const int64_t* ip = idx.data_ptr<int64_t>();
  int64_t n = idx.numel();
  check_bounds("index_select", ip, n, dim, in.size(dim));
  if (!out.is_contiguous()) {
    Tensor dense = native::empty_like(out);
    index_select(dense, in, dim, index);
    Tensor dst = out;
    native::copy_(dst, dense);
    return;
  }
  // Both dense: each (outer position, index) pair is one memcpy of `inner` elements.
  Tensor src = native::contiguous(in);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= in.size(d);
  for (int64_t d = dim + 1; d < in.dim(); ++d) inner *= in.size(d);
  size_t row_bytes = static_cast<size_t>(inner) * src.element_size();
  int64_t size = in.size(dim);
  const char* sp = static_cast<const char*>(src.raw_data());
  char* op = static_cast<char*>(out.raw_data());
  parallel_for(0, outer * n, std::max<int64_t>(1, kGrain / std::max<int64_t>(inner, 1)), [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      int64_t o = r / n, j = r % n;
      std::memcpy(op + r * row_bytes, sp + (o * size + ip[j]) * row_bytes, row_bytes);
    }
  });
}

void CpuBackend::gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  Tensor idx = native::contiguous(index);
  const int64_t* ip = idx.data_ptr<int64_t>();
  check_bounds("gather", ip, idx.numel(), dim, in.size(dim));
  const Shape& shape = idx.sizes();
  int64_t len = shape[dim];
  int64_t lines = len == 0 ? 0 : idx.numel() / len;
  int64_t in_step = in.stride(dim), out_step = out.stride(dim), idx_step = idx.stride(dim);
  dispatch_all(out.dtype(), "gather", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = in.data_ptr<T>();
    T* dst = out.data_ptr<T>();
    std::array<Shape, 3> strides{out.strides(), in.strides(), idx.strides()};
    parallel_for(0, lines, std::max<int64_t>(1, kGrain / std::max<int64_t>(len, 1)), [&](int64_t lo, int64_t hi) {
      for_each_line(shape, dim, strides, lo, hi, [&](const std::array<int64_t, 3>& off) {
        for (int64_t j = 0; j < len; ++j)
          dst[off[0] + j * out_step] = src[off[1] + ip[off[2] + j * idx_step] * in_step];
      });
    });
  });
}

void CpuBackend::scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  Tensor idx = native::contiguous(index);
  const int64_t* ip = idx.data_ptr<int64_t>();
  check_bounds("scatter_add", ip, idx.numel(), dim, self.size(dim));
  const Shape& shape = idx.sizes();
  int64_t len = shape[dim];
  int64_t lines = len == 0 ? 0 : idx.numel() / len;
  int64_t self_step = self.stride(dim), src_step = src.stride(dim), idx_step = idx.stride(dim);
  dispatch_all(self.dtype(), "scatter_add", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = opmath_t<T>;
    T* dst = self.data_ptr<T>();
    const T* from = src.data_ptr<T>();
    std::array<Shape, 3> strides{self.strides(), src.strides(), idx.strides()};
    // Lines differ in some dim other than `dim`, so no two lines write the same element.
    parallel_for(0, lines, std::max<int64_t>(1, kGrain / std::max<int64_t>(len, 1)), [&](int64_t lo, int64_t hi) {
      for_each_line(shape, dim, strides, lo, hi, [&](const std::array<int64_t, 3>& off) {
        for (int64_t j = 0; j < len; ++j) {
          T& target = dst[off[0] + ip[off[2] + j * idx_step] * self_step];
          target = cast<T>(cast<Acc>(target) + cast<Acc>(from[off[1] + j * src_step]));
        }
      });
    });
  });
}

}  // namespace brisk::cpu
