#pragma once
// The kernels of the simulated device. Each op first checks that every defined tensor it was
// given lives on one simulated device (the error names the op and both devices), then runs
// the CPU kernel on host aliases of the operands (sim_memory.h). Results therefore equal the
// CPU's bit for bit; what the device adds is the placement contract a GPU has: host code
// cannot read its memory, and ops refuse operands from another device.
//
// copy() is the one op that crosses devices: host <-> sim:N and sim:M <-> sim:N.
#include "tensor/backend.h"

namespace brisk::sim {

// Transfers the simulated devices have run since the start or reset_copy_counts(),
// process-wide (copies within one device are kernels, not transfers, and are not counted). A
// device-to-host copy is what a host synchronization is on a GPU (item(), to_vector(),
// .to(kCPU)), so a test can count the synchronizations of a training step.
struct CopyCounts {
  uint64_t device_to_host = 0;
  uint64_t host_to_device = 0;
  uint64_t device_to_device = 0;  // between two sim devices
};
CopyCounts copy_counts();
void reset_copy_counts();

class SimBackend final : public Backend {
 public:
  void copy(const Tensor& dst, const Tensor& src, bool non_blocking) override;
  void unary(UnaryOp op, const Tensor& out, const Tensor& in, OpParams params) override;
  void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, OpParams params) override;
  void ternary(TernaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c,
               OpParams params) override;
  void reduce(ReduceOp op, const Tensor& out, const Tensor& indices, const Tensor& in, const std::vector<int64_t>& dims,
              OpParams params) override;
  void softmax(const Tensor& out, const Tensor& in, int64_t dim, bool log) override;
  void softmax_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& out, int64_t dim,
                        bool log) override;
  void batched_gemm(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta) override;
  void index_select(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) override;
  void gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) override;
  void scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) override;
  void random(RandomOp op, const Tensor& out, uint64_t seed, uint64_t offset, OpParams params) override;
  void conv2d(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
              const Conv2dParams& params) override;
  void conv2d_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                       const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                       const Conv2dParams& params) override;
  void max_pool2d(const Tensor& out, const Tensor& indices, const Tensor& input, const Pool2dParams& params) override;
  void max_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& indices) override;
  void avg_pool2d(const Tensor& out, const Tensor& input, const Pool2dParams& params) override;
  void avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Pool2dParams& params) override;
  void adaptive_avg_pool2d(const Tensor& out, const Tensor& input) override;
  void adaptive_avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out) override;
  bool has_batch_norm() const override { return true; }
  void batch_norm(const Tensor& out, const Tensor& save_mean, const Tensor& save_invstd, const Tensor& input,
                  const Tensor& weight, const Tensor& bias, const Tensor& running_mean, const Tensor& running_var,
                  bool training, double momentum, double eps) override;
  void batch_norm_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                           const Tensor& grad_out, const Tensor& input, const Tensor& weight, const Tensor& save_mean,
                           const Tensor& save_invstd, bool training) override;
  void sgd_step(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
                const SgdStepParams& params) override;
  void adam_step(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                 const Tensor& max_exp_avg_sq, const AdamStepParams& params) override;
  void non_finite_check_and_unscale(const Tensor& grad, const Tensor& found_inf, float inv_scale) override;
};

}  // namespace brisk::sim
