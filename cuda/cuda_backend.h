#pragma once
// The CUDA kernels. Each family lives in its own .cu file and runs the same functors as the
// CPU backend (tensor/functors/), so both compute one definition of every op:
//   - elementwise ops through one launch helper (cuda/loops.cu.h): a vectorized path for
//     contiguous aligned operands, an offset-calculator path for strided and broadcast ones;
//   - reductions block-per-output-row with warp shuffles, or split over blocks for long ones;
//   - softmax one row per thread group; matmul through cuBLAS; convolution through cuDNN;
//   - pooling one thread per element, with the CPU's per-element functions.
// Every kernel runs on the current stream of the tensors' device (cuda/stream.h) with that
// device made current, so work is stream-ordered and nothing synchronizes the host except
// copies to host memory.
//
// The backend registers itself at static initialization (cuda/register.cc), so linking
// //cuda:backend is all it takes to make "cuda" tensors computable.
#include "tensor/backend.h"

namespace brisk::cuda {

class CudaBackend final : public Backend {
 public:
  // cuda/copy.cu
  void copy(const Tensor& dst, const Tensor& src, bool non_blocking) override;
  // cuda/elementwise.cu
  void unary(UnaryOp op, const Tensor& out, const Tensor& in, OpParams params) override;
  void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, OpParams params) override;
  void ternary(TernaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c,
               OpParams params) override;
  // cuda/reduce.cu
  void reduce(ReduceOp op, const Tensor& out, const Tensor& indices, const Tensor& in, const std::vector<int64_t>& dims,
              OpParams params) override;
  // cuda/softmax.cu
  void softmax(const Tensor& out, const Tensor& in, int64_t dim, bool log) override;
  void softmax_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& out, int64_t dim,
                        bool log) override;
  // cuda/gemm.cc
  void batched_gemm(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta) override;
  // cuda/index.cu
  void index_select(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) override;
  void gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) override;
  void scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) override;
  // cuda/random.cu
  void random(RandomOp op, const Tensor& out, uint64_t seed, uint64_t offset, OpParams params) override;
  // cuda/optimizer_step.cu
  void sgd_step(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
                const SgdStepParams& params) override;
  void adam_step(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                 const Tensor& max_exp_avg_sq, const AdamStepParams& params) override;
  void non_finite_check_and_unscale(const Tensor& grad, const Tensor& found_inf, float inv_scale) override;
  // cuda/conv.cc
  void conv2d(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
              const Conv2dParams& params) override;
  void conv2d_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                       const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                       const Conv2dParams& params) override;
  // cuda/pool.cu
  void max_pool2d(const Tensor& out, const Tensor& indices, const Tensor& input, const Pool2dParams& params) override;
  void max_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& indices) override;
  void avg_pool2d(const Tensor& out, const Tensor& input, const Pool2dParams& params) override;
  void avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Pool2dParams& params) override;
  void adaptive_avg_pool2d(const Tensor& out, const Tensor& input) override;
  void adaptive_avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out) override;
};

}  // namespace brisk::cuda
