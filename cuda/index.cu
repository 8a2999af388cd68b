// index_select, gather and scatter_add as one strided walk over three views of one shape:
// the walked tensor, the indexed one (stride 0 along dim) and the index (docs/cuda_kernels.md,
// "Indexing"). A bad index fails a device-side assertion naming the op, the index, the dim and
// its size. scatter_add adds atomically, so duplicate indices sum in an unspecified order.
#include <cstdio>

#include "cuda/atomic_add.cu.h"
#include "cuda/cuda_backend.h"
#include "cuda/launch.h"
#include "cuda/offset_calculator.cu.h"
#include "tensor/dispatch.h"
#include "tensor/native/ops.h"

// What assert() calls in device code. glibc declares it for the host only, and not at all
// under NDEBUG; the bounds check must not vanish in optimized builds, so it is called directly.
extern "C" [[noreturn]] __host__ __device__ void __assert_fail(const char* assertion, const char* file,
                                                               unsigned int line, const char* function) noexcept;

namespace brisk::cuda {
namespace {

constexpr int kThreads = 256;

enum class IndexOp { Select, Gather, ScatterAdd };

__device__ const char* index_op_name(IndexOp op) {
  switch (op) {
    case IndexOp::Select: return "index_select";
    case IndexOp::Gather: return "gather";
    default: return "scatter_add";
  }
}

struct IndexArgs {
  int64_t dim;
  int64_t size;            // of the indexed tensor along dim
  int64_t indexed_stride;  // bytes between neighbours along dim in the indexed tensor
};

// Operands of the walk: 0 = walked, 1 = indexed, 2 = index.
template <typename T, IndexOp kOp>
__global__ void __launch_bounds__(kThreads)
    index_kernel(uint32_t n, OffsetCalculator<3> calc, Array<char*, 3> data, IndexArgs args) {
  uint32_t step = gridDim.x * blockDim.x;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
    Array<int64_t, 3> offsets = calc.get(i);
    int64_t index = *reinterpret_cast<const int64_t*>(data[2] + offsets[2]);
    if (index < 0 || index >= args.size) {
      printf("%s: index %lld is out of bounds for dim %lld with size %lld\n", index_op_name(kOp),
             static_cast<long long>(index), static_cast<long long>(args.dim), static_cast<long long>(args.size));
      __assert_fail("index out of bounds", __FILE__, __LINE__, __func__);
    }
    T* walked = reinterpret_cast<T*>(data[0] + offsets[0]);
    T* indexed = reinterpret_cast<T*>(data[1] + offsets[1] + index * args.indexed_stride);
    if constexpr (kOp == IndexOp::ScatterAdd) {
      atomic_add(indexed, *walked);
    } else {
      *walked = *indexed;
    }
  }
}

template <typename T, IndexOp kOp>
struct IndexLaunch {
  IndexArgs args;
  const LaunchScope& scope;

  static void run(const iter::LoopShape& piece, void* context) {
    const auto& self = *static_cast<const IndexLaunch*>(context);
    Array<char*, 3> data;
    for (int k = 0; k < 3; ++k) data[k] = piece.data[k];
    unsigned blocks = grid_size(self.scope.device(), piece.numel, kThreads);
    index_kernel<T, kOp><<<blocks, kThreads, 0, self.scope.stream()>>>(
        static_cast<uint32_t>(piece.numel), make_offset_calculator<3>(piece), data, self.args);
    BRISK_CUDA_CHECK_LAUNCH();
  }
};

// `t` seen with `shape` and its own strides, except 0 along `dim`.
Tensor lines_of(const Tensor& t, const Shape& shape, int64_t dim) {
  Shape strides = t.strides();
  strides[dim] = 0;
  return native::as_strided(t, shape, strides, t.offset());
}

// Runs the walk over `walked` (whose shape all three views share).
template <IndexOp kOp>
void run(const char* name, const Tensor& walked, const Tensor& indexed, int64_t dim, const Tensor& index_view) {
  if (walked.numel() == 0) return;
  BRISK_CHECK(indexed.size(dim) > 0, "{}: index is out of bounds for dim {} with size 0 (tensor {})", name, dim,
              indexed.describe());
  Tensor indexed_lines = lines_of(indexed, walked.sizes(), dim);
  LaunchScope scope(walked.device());
  iter::LoopShape shape = iter::make_loop_shape({&walked, &indexed_lines, &index_view}, name);
  IndexArgs args{dim, indexed.size(dim), indexed.stride(dim) * static_cast<int64_t>(indexed.element_size())};
  dispatch_all(walked.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    IndexLaunch<T, kOp> launch{args, scope};
    for_each_launch_piece(shape, &IndexLaunch<T, kOp>::run, &launch);
  });
}

}  // namespace

void CudaBackend::index_select(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  // The index varies along dim only.
  Shape index_strides(out.dim(), 0);
  index_strides[dim] = index.stride(0);
  Tensor index_view = native::as_strided(index, out.sizes(), index_strides, index.offset());
  run<IndexOp::Select>("index_select", out, in, dim, index_view);
}

void CudaBackend::gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  run<IndexOp::Gather>("gather", out, in, dim, index);
}

void CudaBackend::scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  Tensor src_view = native::as_strided(src, index.sizes(), src.strides(), src.offset());
  run<IndexOp::ScatterAdd>("scatter_add", src_view, self, dim, index);
}

}  // namespace brisk::cuda
