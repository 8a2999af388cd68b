// The softmax kernels' row fold (cuda/softmax_row.h) on the CPU, against the CPU backend's
// softmax: rows holding NaN or infinities give exactly the CPU's NaN/inf/0 pattern, and the
// result does not depend on how the row is split among threads.
#include "cuda/softmax_row.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "tensor/native/ops.h"
#include "tensor/tensor.h"

namespace brisk {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

using Stats = cuda::SoftmaxRowStats<float>;

// The row folded as the kernels do: each of `parts` threads folds every parts-th element,
// then the partial folds are combined pairwise (a tree, as a block reduction does).
Stats fold_row(const std::vector<float>& row, size_t parts) {
  cuda::SoftmaxRowFold<float> fold;
  std::vector<Stats> partial(parts, fold.identity());
  for (size_t i = 0; i < row.size(); ++i) partial[i % parts] = fold.reduce(partial[i % parts], row[i]);
  for (size_t width = 1; width < parts; width *= 2) {
    for (size_t i = 0; i + width < parts; i += 2 * width) partial[i] = fold.combine(partial[i], partial[i + width]);
  }
  return partial[0];
}

std::vector<float> softmax_from(const Stats& stats, const std::vector<float>& row, bool log) {
  cuda::SoftmaxRowOutput<float> output = cuda::softmax_row_output(stats, log);
  std::vector<float> y;
  for (float x : row) y.push_back(output(x));
  return y;
}

std::vector<float> cpu_softmax(const std::vector<float>& row, bool log) {
  Tensor x = native::from_vector(row, {static_cast<int64_t>(row.size())}, kFloat32);
  return native::softmax(x, 0, log).to_vector<float>();
}

void require_same(const std::vector<float>& got, const std::vector<float>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", the CPU gives " << want[i]);
    if (std::isnan(want[i]) || std::isinf(want[i])) {
      CHECK((std::isnan(got[i]) == std::isnan(want[i]) && (std::isnan(got[i]) || got[i] == want[i])));
    } else {
      CHECK(got[i] == Approx(want[i]).margin(1e-7).epsilon(1e-5));
    }
  }
}

}  // namespace

TEST_CASE("softmax rows with NaN and infinities come out as on the CPU, however the row is split") {
  const std::vector<std::vector<float>> rows{
      {-kInf, -kInf, -kInf, -kInf},  // all -inf: NaN
      {1.0f, -kInf, 2.0f, -kInf},    // -inf entries: 0 (log_softmax: -inf)
      {kInf, 1.0f, 2.0f, 3.0f},      // +inf: NaN everywhere
      {1.0f, 2.0f, 3.0f, kInf},      // +inf last
      {kInf, kInf, 0.0f, 1.0f},      // two +inf
      {kInf, -kInf, 0.0f, 1.0f},     // +inf and -inf
      {-kInf, kInf},                 // -inf before +inf
      {kNaN, 1.0f, 2.0f, 3.0f},      // NaN: NaN everywhere
      {1.0f, kInf, kNaN, -kInf},     // NaN with infinities
      {1e30f, -1e30f, 0.0f, 1e30f},  // huge but finite
      {0.5f, -1.5f, 3.0f, 2.0f, -0.25f, 7.0f, 1.0f},
      {42.0f},
  };
  for (const std::vector<float>& row : rows) {
    for (bool log : {false, true}) {
      std::vector<float> want = cpu_softmax(row, log);
      for (size_t parts : {size_t{1}, size_t{2}, size_t{3}, size_t{4}, size_t{8}}) {
        INFO((log ? "log_softmax" : "softmax")
             << " of a row of " << row.size() << " starting " << row[0] << ", folded in " << parts << " parts");
        require_same(softmax_from(fold_row(row, parts), row, log), want);
      }
    }
  }
}

TEST_CASE("the row fold's identity changes nothing") {
  cuda::SoftmaxRowFold<double> fold;
  for (double x : {-std::numeric_limits<double>::infinity(), -3.0, 0.0, 5.0}) {
    cuda::SoftmaxRowStats<double> one = fold.reduce(fold.identity(), x);
    cuda::SoftmaxRowStats<double> both = fold.combine(fold.identity(), one);
    CHECK(both.max == one.max);
    CHECK(both.sum == one.sum);
    both = fold.combine(one, fold.identity());
    CHECK(both.max == one.max);
    CHECK(both.sum == one.sum);
  }
}

}  // namespace brisk
