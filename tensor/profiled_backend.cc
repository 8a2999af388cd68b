#include "tensor/profiled_backend.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <mutex>
#include <string>

#include "profiler/record.h"

namespace brisk {
namespace {

// "Input Dims" and "Input type" as PyTorch's trace names them (undefined tensors show as []),
// and the device of the first (where a GPU time is taken: cuda/profiler_ranges.cc).
profiler::Args describe(std::initializer_list<const Tensor*> inputs) {
  std::string dims;
  std::string types;
  std::string device;
  for (const Tensor* t : inputs) {
    if (!dims.empty()) dims += ", ", types += ", ";
    dims += t->defined() ? fmt::format("{}", t->sizes()) : "[]";
    types += t->defined() ? dtype_name(t->dtype()) : "";
    if (device.empty() && t->defined()) device = t->device().str();
  }
  return {{"Input Dims", "[" + dims + "]"}, {"Input type", types}, {"device", device}};
}

// One op event around the call `body`, named `name`, over `inputs`.
template <typename Body>
void profiled(std::string_view name, std::initializer_list<const Tensor*> inputs, Body&& body) {
  profiler::RecordScope scope(profiler::Category::Op, name, [&] { return describe(inputs); });
  body();
}

class ProfiledBackend final : public Backend {
 public:
  explicit ProfiledBackend(Backend& inner) : inner_(inner) {}

  void copy(const Tensor& dst, const Tensor& src, bool non_blocking) override {
    profiled("copy_", {&dst, &src}, [&] { inner_.copy(dst, src, non_blocking); });
  }
  void unary(UnaryOp op, const Tensor& out, const Tensor& in, OpParams params) override {
    profiled(op_name(op), {&in}, [&] { inner_.unary(op, out, in, params); });
  }
  void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, OpParams params) override {
    profiled(op_name(op), {&a, &b}, [&] { inner_.binary(op, out, a, b, params); });
  }
  void ternary(TernaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c,
               OpParams params) override {
    profiled(op_name(op), {&a, &b, &c}, [&] { inner_.ternary(op, out, a, b, c, params); });
  }
  void reduce(ReduceOp op, const Tensor& out, const Tensor& indices, const Tensor& in, const std::vector<int64_t>& dims,
              OpParams params) override {
    profiled(op_name(op), {&in}, [&] { inner_.reduce(op, out, indices, in, dims, params); });
  }
  void softmax(const Tensor& out, const Tensor& in, int64_t dim, bool log) override {
    profiled(log ? "log_softmax" : "softmax", {&in}, [&] { inner_.softmax(out, in, dim, log); });
  }
  void softmax_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& out, int64_t dim,
                        bool log) override {
    profiled(log ? "log_softmax_backward" : "softmax_backward", {&grad_out, &out},
             [&] { inner_.softmax_backward(grad_in, grad_out, out, dim, log); });
  }
  void batched_gemm(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta) override {
    profiled("bmm", {&a, &b}, [&] { inner_.batched_gemm(out, a, b, alpha, beta); });
  }
  void index_select(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) override {
    profiled("index_select", {&in, &index}, [&] { inner_.index_select(out, in, dim, index); });
  }
  void gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) override {
    profiled("gather", {&in, &index}, [&] { inner_.gather(out, in, dim, index); });
  }
  void scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) override {
    profiled("scatter_add_", {&self, &index, &src}, [&] { inner_.scatter_add(self, dim, index, src); });
  }
  void random(RandomOp op, const Tensor& out, uint64_t seed, uint64_t offset, OpParams params) override {
    profiled(op_name(op), {&out}, [&] { inner_.random(op, out, seed, offset, params); });
  }
  void conv2d(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
              const Conv2dParams& params) override {
    profiled("conv2d", {&input, &weight, &bias}, [&] { inner_.conv2d(out, input, weight, bias, params); });
  }
  void conv2d_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                       const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                       const Conv2dParams& params) override {
    profiled("conv2d_backward", {&grad_out, &input, &weight},
             [&] { inner_.conv2d_backward(grad_input, grad_weight, grad_bias, grad_out, input, weight, params); });
  }
  void max_pool2d(const Tensor& out, const Tensor& indices, const Tensor& input, const Pool2dParams& params) override {
    profiled("max_pool2d", {&input}, [&] { inner_.max_pool2d(out, indices, input, params); });
  }
  void max_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& indices) override {
    profiled("max_pool2d_backward", {&grad_out, &indices},
             [&] { inner_.max_pool2d_backward(grad_input, grad_out, indices); });
  }
  void avg_pool2d(const Tensor& out, const Tensor& input, const Pool2dParams& params) override {
    profiled("avg_pool2d", {&input}, [&] { inner_.avg_pool2d(out, input, params); });
  }
  void avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Pool2dParams& params) override {
    profiled("avg_pool2d_backward", {&grad_out}, [&] { inner_.avg_pool2d_backward(grad_input, grad_out, params); });
  }
  void adaptive_avg_pool2d(const Tensor& out, const Tensor& input) override {
    profiled("adaptive_avg_pool2d", {&input}, [&] { inner_.adaptive_avg_pool2d(out, input); });
  }
  void adaptive_avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out) override {
    profiled("adaptive_avg_pool2d_backward", {&grad_out},
             [&] { inner_.adaptive_avg_pool2d_backward(grad_input, grad_out); });
  }
  bool has_batch_norm() const override { return inner_.has_batch_norm(); }
  void batch_norm(const Tensor& out, const Tensor& save_mean, const Tensor& save_invstd, const Tensor& input,
                  const Tensor& weight, const Tensor& bias, const Tensor& running_mean, const Tensor& running_var,
                  bool training, double momentum, double eps) override {
    profiled("batch_norm", {&input, &weight, &bias}, [&] {
      inner_.batch_norm(out, save_mean, save_invstd, input, weight, bias, running_mean, running_var, training, momentum,
                        eps);
    });
  }
  void batch_norm_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                           const Tensor& grad_out, const Tensor& input, const Tensor& weight, const Tensor& save_mean,
                           const Tensor& save_invstd, bool training) override {
    profiled("batch_norm_backward", {&grad_out, &input, &weight}, [&] {
      inner_.batch_norm_backward(grad_input, grad_weight, grad_bias, grad_out, input, weight, save_mean, save_invstd,
                                 training);
    });
  }
  void sgd_step(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
                const SgdStepParams& params) override {
    profiled("sgd_step_", {&param, &grad}, [&] { inner_.sgd_step(param, grad, momentum_buffer, params); });
  }
  void adam_step(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                 const Tensor& max_exp_avg_sq, const AdamStepParams& params) override {
    profiled("adam_step_", {&param, &grad},
             [&] { inner_.adam_step(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, params); });
  }
  void non_finite_check_and_unscale(const Tensor& grad, const Tensor& found_inf, float inv_scale) override {
    profiled("_amp_foreach_non_finite_check_and_unscale_", {&grad},
             [&] { inner_.non_finite_check_and_unscale(grad, found_inf, inv_scale); });
  }

 private:
  Backend& inner_;
};

}  // namespace

Backend& profiled_backend(DeviceType type, Backend& inner) {
  static std::array<std::once_flag, 3> made;
  static std::array<ProfiledBackend*, 3> wrappers{};
  auto slot = static_cast<size_t>(type);
  std::call_once(made.at(slot), [&] { wrappers[slot] = new ProfiledBackend(inner); });  // lives as long as backends
  return *wrappers[slot];
}

}  // namespace brisk
