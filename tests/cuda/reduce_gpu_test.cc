// CudaBackend::reduce (cuda/reduce.cu) against the CPU: every op and dtype over dim sets that
// take each layout (row, column, generic strided, split over blocks), indices with ties and
// NaN, and empty reductions.
#include "tests/cuda/backend_test_util.h"

namespace brisk {
namespace {

using testing::on_gpu;
using testing::random_cpu;
using testing::require_matches;
using testing::Tolerance;

// The tolerance of a reduction's result, by the result's dtype: the mean, variance, norm and
// logsumexp of integers are float32 and carry float32's rounding (require_same_behavior picks
// the tolerance by the result's dtype). The GPU sums float32 in float32 (the CPU in float64)
// and in another order: agreement to float32 rounding of a sum, on positive inputs, where
// nothing cancels. logsumexp = max + log(sum exp(x - max)) adds the exponentials' errors, CUDA's
// expf 2 ulp (and its rescalings of partial sums by expf, 2 ulp each) against the CPU's
// float64 exp, to the sum's relative error; log turns that relative error into an absolute one,
// plus logf's 1 ulp. The results here are at least 0.9 (at least the maximum: inputs in
// [0.9, 1.1), or integers 0..2, where all zeros give log n >= log 6), so such an absolute error
// is at most 1.1 times as large relative to the result, within the sum's rtol (147 of 840
// int64 results on an H200 differed by one ulp, 4.8e-7 of 5.16, when integers still got
// int64's exact tolerance).
Tolerance reduce_tolerance(DType dtype) {
  switch (dtype) {
    case DType::Float32: return {5e-5, 1e-6};
    case DType::Float64: return {1e-11, 1e-13};
    case DType::Float16: return {2e-3, 1e-4};
    case DType::BFloat16: return {1.6e-2, 1e-3};
    default: return {0, 0};
  }
}

struct ReduceCase {
  ReduceOp op;
  OpParams params;
};

const std::vector<ReduceCase>& reduce_cases() {
  static const std::vector<ReduceCase> cases{
      {ReduceOp::Sum, {}},
      {ReduceOp::Prod, {}},
      {ReduceOp::Max, {}},
      {ReduceOp::Min, {}},
      {ReduceOp::Mean, {}},
      {ReduceOp::Var, {1, 0}},
      {ReduceOp::Var, {0, 0}},
      {ReduceOp::LogSumExp, {}},
      {ReduceOp::Norm, {2, 0}},
      {ReduceOp::Norm, {1, 0}},
      {ReduceOp::Norm, {0, 0}},
      {ReduceOp::Norm, {3.5, 0}},
      {ReduceOp::Norm, {INFINITY, 0}},
      {ReduceOp::Norm, {-INFINITY, 0}},
  };
  return cases;
}

// Dim sets over a [6, 35, 4, 50] input, one per layout of the kernel.
const std::vector<std::vector<int64_t>>& dim_sets() {
  static const std::vector<std::vector<int64_t>> sets{
      {3},     // contiguous rows
      {0},     // columns: neighbouring outputs adjacent in memory
      {1},     // columns with an outer kept dim
      {1, 3},  // two reduced dims that do not merge
      {0, 2},  // two strided reduced dims
      {},      // everything: one output, split over blocks
      {0, 1, 2, 3},
  };
  return sets;
}

TEST_CASE("reductions match the CPU for every op, dtype and layout", "[gpu]") {
  uint64_t seed = 0;
  for (DType dtype : testing::all_dtypes()) {
    // Prod over up to 42000 elements stays finite near 1.
    Tensor x = random_cpu({6, 35, 4, 50}, dtype, ++seed, 0.9, 1.1);
    if (!is_floating_point(dtype)) x = random_cpu({6, 35, 4, 50}, dtype, ++seed, 0.0, 3.0);
    for (const ReduceCase& c : reduce_cases()) {
      for (const auto& dims : dim_sets()) {
        INFO(op_name(c.op) << "(" << c.params.a << ") of " << dtype_name(dtype) << " over " << dims.size()
                           << " dims, first " << (dims.empty() ? -1 : dims[0]));
        testing::require_same_behavior(
            [&](const std::vector<Tensor>& in) { return native::reduce(c.op, in[0], dims, false, c.params); }, {x},
            reduce_tolerance);
      }
    }
  }
}

TEST_CASE("reductions of transposed and sliced inputs match the CPU", "[gpu]") {
  Tensor base = random_cpu({64, 96}, kFloat32, 3, 0.5, 1.5);
  for (const Tensor& x :
       {native::transpose(base, 0, 1), native::slice(base, 1, 1, std::nullopt, 3), native::narrow(base, 0, 1, 63)}) {
    for (int64_t dim : {0, 1}) {
      for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Max, ReduceOp::ArgMin, ReduceOp::Var}) {
        INFO(op_name(op) << " over dim " << dim << " of " << x.describe());
        Tensor want = native::reduce(op, x, {dim}, true, {1, 0});
        require_matches(native::reduce(op, on_gpu(x), {dim}, true, {1, 0}), want, reduce_tolerance(want.dtype()));
      }
    }
  }
}

TEST_CASE("long reductions split over blocks agree with the CPU", "[gpu]") {
  for (DType dtype : {kFloat32, kBFloat16, kFloat64, kInt32}) {
    INFO(dtype_name(dtype));
    Tensor x = random_cpu({(1 << 23) + 7}, dtype, 21, 0.5, 1.5);
    if (!is_floating_point(dtype)) x = random_cpu({(1 << 23) + 7}, dtype, 21, 0.0, 5.0);
    Tensor g = on_gpu(x);
    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Max, ReduceOp::ArgMax}) {
      INFO(op_name(op));
      Tensor want = native::reduce(op, x, {}, false);
      // By the result's dtype: ArgMax's int64 index must be exact.
      Tolerance tol = reduce_tolerance(want.dtype());
      // A float32 sum of 8M elements rounds a little more than a short one.
      if (dtype == kFloat32 && op == ReduceOp::Sum) tol.rtol = 1e-4;
      require_matches(native::reduce(op, g, {}, false), want, tol);
    }
    // A few long rows: split too.
    Tensor rows = native::view(native::narrow(x, 0, 0, 1 << 23), {4, 1 << 21});
    require_matches(native::reduce(ReduceOp::Sum, on_gpu(rows), {1}, false),
                    native::reduce(ReduceOp::Sum, rows, {1}, false),
                    dtype == kFloat32 ? Tolerance{1e-4, 0} : reduce_tolerance(dtype));
  }
}

TEST_CASE("max and min with indices take the first extremum; NaN wins", "[gpu]") {
  // Few distinct values: many ties, across threads and blocks.
  Tensor x = random_cpu({300, 1000}, kInt64, 5, 0.0, 4.0);
  Tensor f = native::to(x, kCPU, kFloat32);
  for (const Tensor& t : {x, f}) {
    for (int64_t dim : {0, 1}) {
      INFO(t.describe() << " over dim " << dim);
      auto [values, indices] = native::max_with_indices(t, dim, false);
      auto [gv, gi] = native::max_with_indices(on_gpu(t), dim, false);
      require_matches(gv, values);
      require_matches(gi, indices);
      auto [mv, mi] = native::min_with_indices(t, dim, true);
      auto [gmv, gmi] = native::min_with_indices(on_gpu(t), dim, true);
      require_matches(gmv, mv);
      require_matches(gmi, mi);
      require_matches(native::argmax(on_gpu(t), dim, false), native::argmax(t, dim, false));
    }
    require_matches(native::argmin(on_gpu(t), std::nullopt, false), native::argmin(t, std::nullopt, false));
  }
  std::vector<float> with_nan(5000, 1.0f);
  with_nan[1234] = NAN;
  with_nan[4000] = NAN;
  with_nan[10] = 2.0f;
  Tensor n = native::from_vector(with_nan, {5000}, kFloat32);
  require_matches(native::argmax(on_gpu(n), 0, false), native::argmax(n, 0, false));
  require_matches(native::reduce(ReduceOp::Max, on_gpu(n), {}, false), native::reduce(ReduceOp::Max, n, {}, false));
}

TEST_CASE("empty reductions give each op's identity", "[gpu]") {
  Tensor x = native::empty({3, 0, 4}, kFloat32);
  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Mean, ReduceOp::LogSumExp, ReduceOp::Norm}) {
    INFO(op_name(op));
    require_matches(native::reduce(op, on_gpu(x), {1}, false, {2, 0}), native::reduce(op, x, {1}, false, {2, 0}));
  }
  Tensor none = native::reduce(ReduceOp::Sum, on_gpu(native::empty({0, 4}, kFloat32)), {1}, false);
  CHECK(none.sizes() == Shape{0});
}

}  // namespace
}  // namespace brisk
