#pragma once
// The CPU kernels. Elementwise and reduction kernels run the shared functors of
// tensor/functors/ through the loops of tensor/cpu/loops.h; matmul goes through Eigen.
// Work splits over OpenMP threads only above a grain size, so tiny tensors pay nothing.
#include "tensor/backend.h"

namespace brisk::cpu {

class CpuBackend final : public Backend {
 public:
  // cpu/copy.cc
  void copy(const Tensor& dst, const Tensor& src, bool non_blocking) override;
  // cpu/elementwise.cc
  void unary(UnaryOp op, const Tensor& out, const Tensor& in, OpParams params) override;
  void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, OpParams params) override;
  void ternary(TernaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c,
               OpParams params) override;
  // cpu/reduce.cc
  void reduce(ReduceOp op, const Tensor& out, const Tensor& indices, const Tensor& in, const std::vector<int64_t>& dims,
              OpParams params) override;
  // cpu/softmax.cc
  void softmax(const Tensor& out, const Tensor& in, int64_t dim, bool log) override;
  void softmax_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& out, int64_t dim,
                        bool log) override;
  // cpu/gemm.cc
  void batched_gemm(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta) override;
  // cpu/index.cc
  void index_select(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) override;
  void gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) override;
  void scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) override;
  // cpu/random.cc
  void random(RandomOp op, const Tensor& out, uint64_t seed, uint64_t offset, OpParams params) override;
  // cpu/conv.cc
  void conv2d(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
              const Conv2dParams& params) override;
  void conv2d_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                       const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                       const Conv2dParams& params) override;
  // cpu/pool.cc
  void max_pool2d(const Tensor& out, const Tensor& indices, const Tensor& input, const Pool2dParams& params) override;
  void max_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& indices) override;
  void avg_pool2d(const Tensor& out, const Tensor& input, const Pool2dParams& params) override;
  void avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Pool2dParams& params) override;
  void adaptive_avg_pool2d(const Tensor& out, const Tensor& input) override;
  void adaptive_avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out) override;
  // cpu/batch_norm.cc
  bool has_batch_norm() const override { return true; }
  void batch_norm(const Tensor& out, const Tensor& save_mean, const Tensor& save_invstd, const Tensor& input,
                  const Tensor& weight, const Tensor& bias, const Tensor& running_mean, const Tensor& running_var,
                  bool training, double momentum, double eps) override;
  void batch_norm_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                           const Tensor& grad_out, const Tensor& input, const Tensor& weight, const Tensor& save_mean,
                           const Tensor& save_invstd, bool training) override;
  // tensor/cpu/optimizer_step.cc
  void sgd_step(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
                const SgdStepParams& params) override;
  void adam_step(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                 const Tensor& max_exp_avg_sq, const AdamStepParams& params) override;
  void non_finite_check_and_unscale(const Tensor& grad, const Tensor& found_inf, float inv_scale) override;
};

}  // namespace brisk::cpu
