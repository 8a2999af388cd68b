#include "tensor/sim/sim_backend.h"

#include <atomic>
#include <initializer_list>

#include "tensor/sim/sim_memory.h"

namespace brisk::sim {
namespace {

Backend& cpu() { return backend_for(kCPU); }

std::atomic<uint64_t> device_to_host_copies{0}, host_to_device_copies{0}, device_to_device_copies{0};

// Errors unless every defined tensor is on one simulated device, naming the op, the device
// of the first defined tensor (the output, where there is one) and the odd tensor.
void check_one_sim_device(const char* op, std::initializer_list<const Tensor*> tensors) {
  const Tensor* first = nullptr;
  for (const Tensor* t : tensors) {
    if (!t->defined()) continue;
    if (first == nullptr) {
      first = t;
      BRISK_CHECK(t->device().is_sim(), "{}: the simulated device's kernel was given a tensor on {} ({})", op,
                  t->device(), t->describe());
      continue;
    }
    BRISK_CHECK(t->device() == first->device(),
                "{}: expected all tensors to be on the same device, but found at least two devices, {} ({}) and {} "
                "({})",
                op, first->device(), first->describe(), t->device(), t->describe());
  }
}

// The host alias of `t` (sim_memory.h); shorter to read in the calls below.
Tensor h(const Tensor& t) { return host_alias(t); }

}  // namespace

CopyCounts copy_counts() {
  return {device_to_host_copies.load(), host_to_device_copies.load(), device_to_device_copies.load()};
}

void reset_copy_counts() {
  device_to_host_copies = 0;
  host_to_device_copies = 0;
  device_to_device_copies = 0;
}

void SimBackend::copy(const Tensor& dst, const Tensor& src, bool non_blocking) {
  auto on_host_or_sim = [](const Tensor& t) { return t.device().is_cpu() || t.device().is_sim(); };
  BRISK_CHECK(on_host_or_sim(dst) && on_host_or_sim(src) && (dst.device().is_sim() || src.device().is_sim()),
              "copy_: the simulated device copies between host and sim tensors, got destination {} and source {}",
              dst.describe(), src.describe());
  const bool to_sim = dst.device().is_sim(), from_sim = src.device().is_sim();
  if (!to_sim) ++device_to_host_copies;
  if (!from_sim) ++host_to_device_copies;
  if (to_sim && from_sim && dst.device() != src.device()) ++device_to_device_copies;
  cpu().copy(to_sim ? h(dst) : dst, from_sim ? h(src) : src, non_blocking);
}

void SimBackend::unary(UnaryOp op, const Tensor& out, const Tensor& in, OpParams params) {
  check_one_sim_device(op_name(op), {&out, &in});
  cpu().unary(op, h(out), h(in), params);
}

void SimBackend::binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, OpParams params) {
  check_one_sim_device(op_name(op), {&out, &a, &b});
  cpu().binary(op, h(out), h(a), h(b), params);
}

void SimBackend::ternary(TernaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c,
                         OpParams params) {
  check_one_sim_device(op_name(op), {&out, &a, &b, &c});
  cpu().ternary(op, h(out), h(a), h(b), h(c), params);
}

void SimBackend::reduce(ReduceOp op, const Tensor& out, const Tensor& indices, const Tensor& in,
                        const std::vector<int64_t>& dims, OpParams params) {
  check_one_sim_device(op_name(op), {&out, &indices, &in});
  cpu().reduce(op, h(out), h(indices), h(in), dims, params);
}

void SimBackend::softmax(const Tensor& out, const Tensor& in, int64_t dim, bool log) {
  check_one_sim_device(log ? "log_softmax" : "softmax", {&out, &in});
  cpu().softmax(h(out), h(in), dim, log);
}

void SimBackend::softmax_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& out, int64_t dim,
                                  bool log) {
  check_one_sim_device(log ? "log_softmax_backward" : "softmax_backward", {&grad_in, &grad_out, &out});
  cpu().softmax_backward(h(grad_in), h(grad_out), h(out), dim, log);
}

void SimBackend::batched_gemm(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta) {
  check_one_sim_device("matmul", {&out, &a, &b});
  cpu().batched_gemm(h(out), h(a), h(b), alpha, beta);
}

void SimBackend::index_select(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  check_one_sim_device("index_select", {&out, &in, &index});
  cpu().index_select(h(out), h(in), dim, h(index));
}

void SimBackend::gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  check_one_sim_device("gather", {&out, &in, &index});
  cpu().gather(h(out), h(in), dim, h(index));
}

void SimBackend::scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  check_one_sim_device("scatter_add", {&self, &index, &src});
  cpu().scatter_add(h(self), dim, h(index), h(src));
}

void SimBackend::random(RandomOp op, const Tensor& out, uint64_t seed, uint64_t offset, OpParams params) {
  check_one_sim_device("random", {&out});
  cpu().random(op, h(out), seed, offset, params);
}

void SimBackend::conv2d(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                        const Conv2dParams& params) {
  check_one_sim_device("conv2d", {&out, &input, &weight, &bias});
  cpu().conv2d(h(out), h(input), h(weight), h(bias), params);
}

void SimBackend::conv2d_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                                 const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                                 const Conv2dParams& params) {
  check_one_sim_device("conv2d_backward", {&grad_out, &grad_input, &grad_weight, &grad_bias, &input, &weight});
  cpu().conv2d_backward(h(grad_input), h(grad_weight), h(grad_bias), h(grad_out), h(input), h(weight), params);
}

void SimBackend::max_pool2d(const Tensor& out, const Tensor& indices, const Tensor& input, const Pool2dParams& params) {
  check_one_sim_device("max_pool2d", {&out, &indices, &input});
  cpu().max_pool2d(h(out), h(indices), h(input), params);
}

void SimBackend::max_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& indices) {
  check_one_sim_device("max_pool2d_backward", {&grad_input, &grad_out, &indices});
  cpu().max_pool2d_backward(h(grad_input), h(grad_out), h(indices));
}

void SimBackend::avg_pool2d(const Tensor& out, const Tensor& input, const Pool2dParams& params) {
  check_one_sim_device("avg_pool2d", {&out, &input});
  cpu().avg_pool2d(h(out), h(input), params);
}

void SimBackend::avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Pool2dParams& params) {
  check_one_sim_device("avg_pool2d_backward", {&grad_input, &grad_out});
  cpu().avg_pool2d_backward(h(grad_input), h(grad_out), params);
}

void SimBackend::adaptive_avg_pool2d(const Tensor& out, const Tensor& input) {
  check_one_sim_device("adaptive_avg_pool2d", {&out, &input});
  cpu().adaptive_avg_pool2d(h(out), h(input));
}

void SimBackend::adaptive_avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out) {
  check_one_sim_device("adaptive_avg_pool2d_backward", {&grad_input, &grad_out});
  cpu().adaptive_avg_pool2d_backward(h(grad_input), h(grad_out));
}

void SimBackend::batch_norm(const Tensor& out, const Tensor& save_mean, const Tensor& save_invstd, const Tensor& input,
                            const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                            const Tensor& running_var, bool training, double momentum, double eps) {
  check_one_sim_device("batch_norm",
                       {&out, &save_mean, &save_invstd, &input, &weight, &bias, &running_mean, &running_var});
  cpu().batch_norm(h(out), h(save_mean), h(save_invstd), h(input), h(weight), h(bias), h(running_mean), h(running_var),
                   training, momentum, eps);
}

void SimBackend::batch_norm_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                                     const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                                     const Tensor& save_mean, const Tensor& save_invstd, bool training) {
  check_one_sim_device("batch_norm_backward",
                       {&grad_input, &grad_weight, &grad_bias, &grad_out, &input, &weight, &save_mean, &save_invstd});
  cpu().batch_norm_backward(h(grad_input), h(grad_weight), h(grad_bias), h(grad_out), h(input), h(weight), h(save_mean),
                            h(save_invstd), training);
}

void SimBackend::sgd_step(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
                          const SgdStepParams& params) {
  check_one_sim_device("sgd_step", {&param, &grad, &momentum_buffer});
  cpu().sgd_step(h(param), h(grad), h(momentum_buffer), params);
}

void SimBackend::adam_step(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                           const Tensor& max_exp_avg_sq, const AdamStepParams& params) {
  check_one_sim_device("adam_step", {&param, &grad, &exp_avg, &exp_avg_sq, &max_exp_avg_sq});
  cpu().adam_step(h(param), h(grad), h(exp_avg), h(exp_avg_sq), h(max_exp_avg_sq), params);
}

void SimBackend::non_finite_check_and_unscale(const Tensor& grad, const Tensor& found_inf, float inv_scale) {
  check_one_sim_device("non_finite_check_and_unscale", {&grad, &found_inf});
  cpu().non_finite_check_and_unscale(h(grad), h(found_inf), inv_scale);
}

}  // namespace brisk::sim
