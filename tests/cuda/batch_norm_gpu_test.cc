// CudaBackend's batch norm kernels (cuda/batch_norm.cu) against the CPU backend's on the same
// inputs: float32, float64, bfloat16 and float16 data (float32 statistics for the 16-bit
// ones), contiguous NCHW and channels_last, training (batch statistics, running statistics
// updated) and eval, without and with the fused relu/gelu, forward and backward; shapes with
// a channel count that is not a multiple of 32 and one large enough to split each channel's
// values over many blocks; num_batches_tracked counted by the training kernels. Both devices
// sum in different orders, so results match within a tolerance of the dtype; the [C] results
// within a relative error of their norm.
#include <array>

#include "tests/cuda/backend_test_util.h"

namespace brisk {
namespace {

using testing::on_cpu;
using testing::on_gpu;
using testing::random_cpu;
using testing::relative_error;
using testing::require_matches;
using testing::Tolerance;

Tensor channels_last(const Tensor& x) {
  return native::permute(native::contiguous(native::permute(x, {0, 2, 3, 1})), {0, 3, 1, 2});
}

bool is_channels_last(const Tensor& t) {
  const int64_t c = t.size(1), h = t.size(2), w = t.size(3);
  return t.stride(0) == h * w * c && t.stride(1) == 1 && t.stride(2) == w * c && t.stride(3) == c;
}

// Data results: a 16-bit value may round one step apart; float32 sums in another order.
Tolerance data_tolerance(DType dtype) {
  switch (dtype) {
    case DType::Float64: return {1e-10, 1e-10};
    case DType::Float32: return {1e-4, 1e-4};
    case DType::Float16: return {4e-3, 4e-3};
    default: return {2e-2, 2e-2};
  }
}

double stats_tolerance(DType dtype) { return dtype == kFloat64 ? 1e-10 : 1e-4; }

void check_stats(const Tensor& gpu, const Tensor& cpu, DType dtype) {
  INFO(cpu.describe());
  CHECK(relative_error(gpu, native::to(cpu, kCPU, kFloat64)) < stats_tolerance(dtype));
}

TEST_CASE("CUDA batch_norm and batch_norm_backward match the CPU in every dtype, layout and mode") {
  const std::vector<Shape> shapes{{3, 5, 7, 3}, {8, 40, 9, 7}, {16, 32, 16, 16}};
  for (const Shape& shape : shapes) {
    for (DType dtype : {kFloat32, kFloat64, kBFloat16, kFloat16}) {
      const DType stats = dtype == kFloat64 ? kFloat64 : kFloat32;
      for (bool nhwc : {false, true}) {
        for (bool training : {true, false}) {
          for (FusedActivation activation : {FusedActivation::None, FusedActivation::Relu, FusedActivation::Gelu}) {
            INFO("[" << shape[0] << ", " << shape[1] << ", " << shape[2] << ", " << shape[3] << "] "
                     << dtype_name(dtype) << (nhwc ? " channels_last" : " NCHW") << (training ? " training " : " eval ")
                     << fused_activation_name(activation));
            const int64_t c = shape[1];
            Tensor x = random_cpu(shape, dtype, 1, -1.5, 2.5);
            if (nhwc) x = channels_last(x);
            Tensor weight = random_cpu({c}, stats, 2, 0.5, 1.5), bias = random_cpu({c}, stats, 3);
            Tensor mean = random_cpu({c}, stats, 4), var = random_cpu({c}, stats, 5, 0.5, 1.5);
            Tensor grad_out = random_cpu(shape, dtype, 6);
            Tensor gpu_mean = on_gpu(mean), gpu_var = on_gpu(var);

            std::array<Tensor, 3> want =
                native::batch_norm(x, weight, bias, mean, var, training, 0.1, 1e-5, activation);
            std::array<Tensor, 3> got = native::batch_norm(on_gpu(x), on_gpu(weight), on_gpu(bias), gpu_mean, gpu_var,
                                                           training, 0.1, 1e-5, activation);
            CHECK(is_channels_last(got[0]) == nhwc);
            require_matches(got[0], want[0], data_tolerance(dtype));
            check_stats(got[1], want[1], dtype);
            check_stats(got[2], want[2], dtype);
            check_stats(gpu_mean, mean, dtype);
            check_stats(gpu_var, var, dtype);

            // The backward from each device's own forward results.
            std::array<Tensor, 3> want_grads = native::batch_norm_backward(
                grad_out, x, weight, bias, want[0], want[1], want[2], training, activation, {true, true, true});
            std::array<Tensor, 3> got_grads =
                native::batch_norm_backward(on_gpu(grad_out), on_gpu(x), on_gpu(weight), on_gpu(bias), got[0], got[1],
                                            got[2], training, activation, {true, true, true});
            CHECK(is_channels_last(got_grads[0]) == nhwc);
            require_matches(got_grads[0], want_grads[0], data_tolerance(dtype));
            check_stats(got_grads[1], want_grads[1], dtype);
            check_stats(got_grads[2], want_grads[2], dtype);
          }
        }
      }
    }
  }
}

TEST_CASE("CUDA batch_norm_backward computes only the gradients asked for") {
  Tensor x = random_cpu({4, 6, 5, 5}, kFloat32, 7), g = random_cpu({4, 6, 5, 5}, kFloat32, 8);
  Tensor w = random_cpu({6}, kFloat32, 9);
  std::array<Tensor, 3> y = native::batch_norm(on_gpu(x), on_gpu(w), Tensor(), Tensor(), Tensor(), true, 0.1, 1e-5);
  std::array<Tensor, 3> only_weight =
      native::batch_norm_backward(on_gpu(g), on_gpu(x), on_gpu(w), Tensor(), Tensor(), y[1], y[2], true,
                                  FusedActivation::None, {false, true, false});
  CHECK_FALSE(only_weight[0].defined());
  CHECK_FALSE(only_weight[2].defined());
  std::array<Tensor, 3> cpu_y = native::batch_norm(x, w, Tensor(), Tensor(), Tensor(), true, 0.1, 1e-5);
  std::array<Tensor, 3> want = native::batch_norm_backward(g, x, w, Tensor(), Tensor(), cpu_y[1], cpu_y[2], true,
                                                           FusedActivation::None, {true, true, true});
  check_stats(only_weight[1], want[1], kFloat32);
}

TEST_CASE("CUDA batch_norm counts each training call in num_batches_tracked, evaluation calls not") {
  Tensor x = random_cpu({4, 6, 5, 5}, kFloat32, 10);
  Tensor mean = on_gpu(native::zeros({6}, kFloat32)), var = on_gpu(native::full({6}, 1.0, kFloat32));
  Tensor counter = on_gpu(native::zeros({}, kInt64));
  Tensor cpu_mean = native::zeros({6}, kFloat32), cpu_var = native::full({6}, 1.0, kFloat32);
  Tensor cpu_counter = native::zeros({}, kInt64);
  for (bool nhwc : {false, true, false}) {
    Tensor in = nhwc ? channels_last(x) : x;
    native::batch_norm(on_gpu(in), Tensor(), Tensor(), mean, var, true, 0.1, 1e-5, FusedActivation::None, counter);
    native::batch_norm(in, Tensor(), Tensor(), cpu_mean, cpu_var, true, 0.1, 1e-5, FusedActivation::None, cpu_counter);
  }
  native::batch_norm(on_gpu(x), Tensor(), Tensor(), mean, var, false, 0.1, 1e-5, FusedActivation::None, counter);
  CHECK(on_cpu(counter).item<int64_t>() == 3);
  CHECK(cpu_counter.item<int64_t>() == 3);
  check_stats(mean, cpu_mean, kFloat32);
  check_stats(var, cpu_var, kFloat32);
}

}  // namespace
}  // namespace brisk
