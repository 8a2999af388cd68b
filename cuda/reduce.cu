// CudaBackend::reduce: folds a reduction functor (tensor/functors/reduce.h) over a sorted set
// of dims, with the CPU's geometry (iter::make_reduce_shape), in one kernel of "row" or
// "column" layout, split over gridDim.y blocks when outputs are few (docs/cuda_kernels.md,
// "Reductions"). ArgMax/ArgMin folds keep the earlier index first (combine_ordered).
#include <algorithm>
#include <type_traits>

#include "cuda/block_reduce.cu.h"
#include "cuda/cuda_backend.h"
#include "cuda/launch.h"
#include "cuda/offset_calculator.cu.h"
#include "tensor/functors/cast.h"
#include "tensor/iter/reduce_shape.h"
#include "tensor/kernels/reduce_dispatch.h"
#include "tensor/native/ops.h"

namespace brisk::cuda {
namespace {

constexpr int kThreads = 512;
// Column layout: at most this many lanes along the reduction (the rest go to outputs).
constexpr int kMaxColumnLanes = 16;
// A split gets at least this many loads per thread, or the partials cost more than they save.
constexpr int64_t kMinLoadsPerThread = 16;
constexpr int kMaxOutputs = 1 + iter::kMaxReduceOutputs;  // the input and up to two outputs
constexpr int kVecBytes = 16;

template <typename T>
constexpr bool kVectorizedInput = std::is_same_v<T, float> || is_reduced_float_v<T>;

struct ReduceParams {
  int64_t num_outputs;
  int64_t num_reduced;
  int64_t chunk;  // reduced elements per split, a multiple of the vector width
  int outputs_per_block;
  bool row_layout;
  // Kept dims: offsets of the input's row and of each output.
  OffsetCalculator<kMaxOutputs> kept;
  // Reduced dims; with one dim the offset is r * reduced_stride, with no division.
  int nreduced;
  int64_t reduced_stride;
  OffsetCalculator<1> reduced;
  const char* in;
  Array<char*, iter::kMaxReduceOutputs> out;
  void* partials;  // [splits][num_outputs] acc_t, when gridDim.y > 1
};

template <typename Op>
__device__ __forceinline__ typename Op::acc_t combine_ordered(const Op& op, typename Op::acc_t a,
                                                              typename Op::acc_t b) {
  if constexpr (!Op::kReorderable) {
    // Partials of interleaved elements: the one that chose the earlier index goes first.
    if (b.index >= 0 && (a.index < 0 || b.index < a.index)) return op.combine(b, a);
  }
  return op.combine(a, b);
}

__device__ __forceinline__ int64_t reduced_offset(const ReduceParams& p, int64_t r) {
  if (p.nreduced == 1) return r * p.reduced_stride;
  return p.reduced.get(static_cast<uint32_t>(r))[0];
}

// Folds kVec consecutive reduced elements from r (contiguous when kVec > 1).
template <typename In, int kVec, typename Op>
__device__ __forceinline__ typename Op::acc_t fold_at(const Op& op, typename Op::acc_t acc, const char* row,
                                                      const ReduceParams& p, int64_t r) {
  using I = typename Op::input_t;
  if constexpr (kVec == 1) {
    return op.reduce(acc, cast<I>(*reinterpret_cast<const In*>(row + reduced_offset(p, r))), r);
  } else {
    struct alignas(sizeof(In) * kVec) Packed {
      In v[kVec];
    };
    Packed x = *reinterpret_cast<const Packed*>(row + r * static_cast<int64_t>(sizeof(In)));
#pragma unroll
    for (int j = 0; j < kVec; ++j) acc = op.reduce(acc, cast<I>(x.v[j]), r + j);
    return acc;
  }
}

template <typename In, int kVec, typename Op, typename Writer>
__global__ void __launch_bounds__(kThreads) reduce_kernel(ReduceParams p, Op op, Writer write) {
  using Acc = typename Op::acc_t;
  __shared__ Acc shared[kThreads];
  int lane = p.row_layout ? threadIdx.x : threadIdx.y;
  int lanes = p.row_layout ? blockDim.x : blockDim.y;
  int slot = p.row_layout ? threadIdx.y : threadIdx.x;
  int64_t o = static_cast<int64_t>(blockIdx.x) * p.outputs_per_block + slot;
  bool active = o < p.num_outputs;
  Array<int64_t, kMaxOutputs> offsets = p.kept.get(static_cast<uint32_t>(active ? o : 0));
  Acc acc = op.identity();
  if (active) {
    const char* row = p.in + offsets[0];
    int64_t begin = static_cast<int64_t>(blockIdx.y) * p.chunk;
    int64_t end = begin + p.chunk < p.num_reduced ? begin + p.chunk : p.num_reduced;
    int64_t step = static_cast<int64_t>(lanes) * kVec;
    int64_t r = begin + static_cast<int64_t>(lane) * kVec;
    // Four loads in flight per thread before their folds.
    for (; r + 3 * step + kVec <= end; r += 4 * step) {
      acc = fold_at<In, kVec>(op, acc, row, p, r);
      acc = fold_at<In, kVec>(op, acc, row, p, r + step);
      acc = fold_at<In, kVec>(op, acc, row, p, r + 2 * step);
      acc = fold_at<In, kVec>(op, acc, row, p, r + 3 * step);
    }
    for (; r + kVec <= end; r += step) acc = fold_at<In, kVec>(op, acc, row, p, r);
    // The last elements short of a vector, all in one thread's range.
    for (; r < end; ++r) acc = fold_at<In, 1>(op, acc, row, p, r);
  }
  auto combine = [&op](const Acc& a, const Acc& b) { return combine_ordered(op, a, b); };
  acc = p.row_layout ? group_reduce_x(acc, combine, shared) : group_reduce_y(acc, combine, shared);
  if (!active || lane != 0) return;
  if (gridDim.y > 1) {
    static_cast<Acc*>(p.partials)[blockIdx.y * p.num_outputs + o] = acc;
    return;
  }
  char* outs[iter::kMaxReduceOutputs];
  for (int k = 0; k < iter::kMaxReduceOutputs; ++k) outs[k] = p.out[k] + offsets[k + 1];
  write(outs, op.project(acc));
}

// One warp per output folds its `splits` partials in split order.
template <typename Op, typename Writer>
__global__ void __launch_bounds__(kThreads) combine_partials_kernel(ReduceParams p, int splits, Op op, Writer write) {
  using Acc = typename Op::acc_t;
  int lane = threadIdx.x % kWarpSize;
  int64_t o = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarpSize;
  bool active = o < p.num_outputs;
  Acc acc = op.identity();
  const Acc* partials = static_cast<const Acc*>(p.partials);
  if (active) {
    for (int s = lane; s < splits; s += kWarpSize) acc = combine_ordered(op, acc, partials[s * p.num_outputs + o]);
  }
  auto combine = [&op](const Acc& a, const Acc& b) { return combine_ordered(op, a, b); };
  acc = warp_reduce(acc, combine, kWarpSize);
  if (!active || lane != 0) return;
  Array<int64_t, kMaxOutputs> offsets = p.kept.get(static_cast<uint32_t>(o));
  char* outs[iter::kMaxReduceOutputs];
  for (int k = 0; k < iter::kMaxReduceOutputs; ++k) outs[k] = p.out[k] + offsets[k + 1];
  write(outs, op.project(acc));
}

template <typename Out>
struct ValueWriter {
  template <typename R>
  __device__ void operator()(char* const* out, const R& result) const {
    *reinterpret_cast<Out*>(out[0]) = cast<Out>(result);
  }
};

template <typename T>
struct ValueIndexWriter {
  template <typename R>
  __device__ void operator()(char* const* out, const R& result) const {
    *reinterpret_cast<T*>(out[0]) = cast<T>(result.value);
    *reinterpret_cast<int64_t*>(out[1]) = result.index;
  }
};

struct IndexWriter {
  template <typename R>
  __device__ void operator()(char* const* out, const R& result) const {
    *reinterpret_cast<int64_t*>(out[0]) = result.index;
  }
};

// Geometry, layout and grid of one reduction; see the top of this file.
struct ReducePlan {
  ReduceParams params;
  dim3 block;
  dim3 grid;
  int vec = 1;
};

// resident[v]: blocks of the kernel for vector width 1 (v = 0) or vec_width (v = 1) that the
// device runs at once.
ReducePlan plan(const iter::ReduceShape& s, const char* name, int64_t in_size, int vec_width, const int64_t* resident) {
  BRISK_CHECK(s.nkept <= kMaxLaunchDims && s.nreduced <= kMaxLaunchDims,
              "{}: CUDA reductions take at most {} kept and {} reduced dims that cannot be merged, got {} and {}", name,
              kMaxLaunchDims, kMaxLaunchDims, s.nkept, s.nreduced);
  BRISK_CHECK(s.num_outputs <= kMaxLaunchElements && (s.nreduced == 1 || s.num_reduced <= kMaxLaunchElements),
              "{}: CUDA reductions take at most 2^31 - 1 outputs, and as many elements per output over several "
              "dims; got {} outputs of {} elements",
              name, s.num_outputs, s.num_reduced);
  ReducePlan plan;
  ReduceParams& p = plan.params;
  p.num_outputs = s.num_outputs;
  p.num_reduced = s.num_reduced;
  const int64_t* kept_strides[kMaxOutputs] = {s.kept_in_strides, s.kept_out_strides[0], s.kept_out_strides[1]};
  p.kept = OffsetCalculator<kMaxOutputs>(s.nkept, s.kept_sizes, kept_strides);
  p.nreduced = s.num_reduced == 0 ? 1 : s.nreduced;
  p.reduced_stride = s.red_strides[0];
  const int64_t* reduced_strides[1] = {s.red_strides};
  if (p.nreduced > 1) p.reduced = OffsetCalculator<1>(s.nreduced, s.red_sizes, reduced_strides);
  p.in = s.in;
  for (int k = 0; k < iter::kMaxReduceOutputs; ++k) p.out[k] = k < s.nout ? s.out[k] : nullptr;

  bool reduced_contiguous = s.red_strides[0] == in_size;
  p.row_layout = reduced_contiguous || !(s.kept_in_strides[0] == in_size && s.kept_sizes[0] > 1);
  // 16-byte loads need every row to start 16-byte aligned and one contiguous run per row.
  bool aligned = reinterpret_cast<uintptr_t>(s.in) % (in_size * vec_width) == 0;
  for (int d = 0; d < s.nkept; ++d) aligned = aligned && s.kept_in_strides[d] % (in_size * vec_width) == 0;
  plan.vec = (vec_width > 1 && s.nreduced == 1 && reduced_contiguous && aligned) ? vec_width : 1;

  int64_t lanes;
  if (p.row_layout) {
    lanes = std::min<int64_t>(kThreads, next_pow2((s.num_reduced + plan.vec - 1) / plan.vec));
    plan.block = dim3(static_cast<unsigned>(lanes), static_cast<unsigned>(kThreads / lanes));
    p.outputs_per_block = static_cast<int>(kThreads / lanes);
  } else {
    lanes = std::min<int64_t>(kMaxColumnLanes, next_pow2(s.num_reduced));
    plan.block = dim3(static_cast<unsigned>(kThreads / lanes), static_cast<unsigned>(lanes));
    p.outputs_per_block = static_cast<int>(kThreads / lanes);
  }
  int64_t blocks = (s.num_outputs + p.outputs_per_block - 1) / p.outputs_per_block;
  int64_t fit = resident[plan.vec > 1 ? 1 : 0];
  int64_t per_split = lanes * plan.vec * kMinLoadsPerThread;
  int64_t splits = 1;
  if (blocks < fit) splits = std::max<int64_t>(1, std::min((fit + blocks - 1) / blocks, s.num_reduced / per_split));
  int64_t chunk = (s.num_reduced + splits - 1) / splits;
  chunk = (chunk + plan.vec - 1) / plan.vec * plan.vec;
  p.chunk = std::max<int64_t>(chunk, 1);
  splits = s.num_reduced == 0 ? 1 : (s.num_reduced + p.chunk - 1) / p.chunk;
  plan.grid = dim3(static_cast<unsigned>(blocks), static_cast<unsigned>(splits));
  return plan;
}

// Blocks of reduce_kernel<In, kVec, Op, Writer> the device runs at once, asked once per
// kernel (the answer depends on its registers).
template <typename In, int kVec, typename Op, typename Writer>
int64_t resident_blocks(int device) {
  static const int per_sm = [] {
    int n = 0;
    BRISK_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, reduce_kernel<In, kVec, Op, Writer>, kThreads, 0));
    return std::max(n, 1);
  }();
  return static_cast<int64_t>(per_sm) * device_limits(device).sm_count;
}

// Reduces `in` over `dims` into `outputs` with functor `op`, results written by `write`.
template <typename In, typename Op, typename Writer>
void run(const char* name, const Op& op, const Tensor& in, const std::vector<int64_t>& dims,
         std::initializer_list<const Tensor*> outputs, const Writer& write) {
  iter::ReduceShape shape = iter::make_reduce_shape(in, dims, outputs);
  if (shape.num_outputs == 0) return;
  using Acc = typename Op::acc_t;
  LaunchScope scope(in.device());
  constexpr int kVec = kVectorizedInput<In> ? kVecBytes / static_cast<int>(sizeof(In)) : 1;
  const int64_t resident[2] = {resident_blocks<In, 1, Op, Writer>(scope.device()),
                               resident_blocks<In, kVec, Op, Writer>(scope.device())};
  ReducePlan p = plan(shape, name, static_cast<int64_t>(sizeof(In)), kVec, resident);
  ReduceParams params = p.params;
  Tensor partials;
  if (p.grid.y > 1) {
    int64_t bytes = static_cast<int64_t>(p.grid.y) * params.num_outputs * static_cast<int64_t>(sizeof(Acc));
    partials = native::empty({bytes}, TensorOptions(kUInt8).device(in.device()));
    params.partials = partials.raw_data();
  }
  if (p.vec > 1) {
    reduce_kernel<In, kVec><<<p.grid, p.block, 0, scope.stream()>>>(params, op, write);
  } else {
    reduce_kernel<In, 1><<<p.grid, p.block, 0, scope.stream()>>>(params, op, write);
  }
  BRISK_CUDA_CHECK_LAUNCH();
  if (p.grid.y > 1) {
    int64_t threads = params.num_outputs * kWarpSize;
    auto blocks = static_cast<unsigned>((threads + kThreads - 1) / kThreads);
    combine_partials_kernel<<<blocks, kThreads, 0, scope.stream()>>>(params, static_cast<int>(p.grid.y), op, write);
    BRISK_CUDA_CHECK_LAUNCH();
  }
}

int64_t reduced_count(const Tensor& in, const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= in.sizes()[d];
  return n;
}

struct CudaReducer {
  static constexpr bool kFloat32AccumulatesInFloat64 = false;
  const Tensor& out;
  const Tensor& indices;
  const Tensor& in;
  const std::vector<int64_t>& dims;

  template <typename In, typename Op>
  void value(const char* name, const Op& op) const {
    using SumOut = kernels::sum_out_t<In>;
    BRISK_CHECK(out.dtype() == dtype_of<SumOut>::value || out.dtype() == in.dtype(),
                "{}: output dtype {} for input dtype {}", name, out.dtype(), in.dtype());
    if (out.dtype() == in.dtype()) {
      run<In>(name, op, in, dims, {&out}, ValueWriter<In>{});
    } else if constexpr (!std::is_same_v<In, SumOut>) {
      run<In>(name, op, in, dims, {&out}, ValueWriter<SumOut>{});
    }
  }

  template <typename In, typename Op>
  void value_and_index(const char* name, const Op& op) const {
    run<In>(name, op, in, dims, {&out, &indices}, ValueIndexWriter<In>{});
  }

  template <typename In, typename Op>
  void index(const char* name, const Op& op) const {
    run<In>(name, op, in, dims, {&indices}, IndexWriter{});
  }
};

}  // namespace

void CudaBackend::reduce(ReduceOp op, const Tensor& out, const Tensor& indices, const Tensor& in,
                         const std::vector<int64_t>& dims, OpParams p) {
  kernels::reduce(op, in.dtype(), p, indices.defined(), reduced_count(in, dims), CudaReducer{out, indices, in, dims});
}

}  // namespace brisk::cuda
