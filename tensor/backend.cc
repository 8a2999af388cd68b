#include "tensor/backend.h"

#include "profiler/record.h"
#include "tensor/profiled_backend.h"

namespace brisk {
namespace {

Backend* cuda_backend_slot = nullptr;
Backend* sim_backend_slot = nullptr;

[[noreturn]] void op_missing(const char* op, const Tensor& t) {
  BRISK_FAIL("{}: not implemented for device {} yet", op, t.device());
}

Backend& device_backend(Device device) {
  switch (device.type) {
    case DeviceType::CPU: return cpu_backend();
    case DeviceType::CUDA:
      BRISK_CHECK(cuda_backend_slot != nullptr,
                  "device {} requested, but no CUDA backend is linked (depend on //cuda, in a build with CUDA)",
                  device);
      return *cuda_backend_slot;
    case DeviceType::Sim:
      BRISK_CHECK(sim_backend_slot != nullptr,
                  "device {} requested, but this program does not link the simulated device (depend on //tensor/sim)",
                  device);
      return *sim_backend_slot;
  }
  BRISK_FAIL("backend_for: unknown device type");
}

}  // namespace

void register_backend(DeviceType type, Backend* backend) {
  BRISK_CHECK(type != DeviceType::CPU, "register_backend: the CPU backend is built in");
  (type == DeviceType::CUDA ? cuda_backend_slot : sim_backend_slot) = backend;
}

Backend& backend_for(Device device) {
  Backend& backend = device_backend(device);
  return profiler::is_enabled() ? profiled_backend(device.type, backend) : backend;
}

void Backend::conv2d(const Tensor& out, const Tensor&, const Tensor&, const Tensor&, const Conv2dParams&) {
  op_missing("conv2d", out);
}
void Backend::conv2d_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor& grad_out, const Tensor&,
                              const Tensor&, const Conv2dParams&) {
  op_missing("conv2d_backward", grad_out);
}
void Backend::max_pool2d(const Tensor& out, const Tensor&, const Tensor&, const Pool2dParams&) {
  op_missing("max_pool2d", out);
}
void Backend::max_pool2d_backward(const Tensor& grad_input, const Tensor&, const Tensor&) {
  op_missing("max_pool2d_backward", grad_input);
}
void Backend::avg_pool2d(const Tensor& out, const Tensor&, const Pool2dParams&) { op_missing("avg_pool2d", out); }
void Backend::avg_pool2d_backward(const Tensor& grad_input, const Tensor&, const Pool2dParams&) {
  op_missing("avg_pool2d_backward", grad_input);
}
void Backend::adaptive_avg_pool2d(const Tensor& out, const Tensor&) { op_missing("adaptive_avg_pool2d", out); }
void Backend::adaptive_avg_pool2d_backward(const Tensor& grad_input, const Tensor&) {
  op_missing("adaptive_avg_pool2d_backward", grad_input);
}

void Backend::batch_norm(const Tensor& out, const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                         const Tensor&, const Tensor&, bool, double, double) {
  op_missing("batch_norm", out);
}
void Backend::batch_norm_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor& grad_out, const Tensor&,
                                  const Tensor&, const Tensor&, const Tensor&, bool) {
  op_missing("batch_norm_backward", grad_out);
}

void Backend::sgd_step(const Tensor& param, const Tensor&, const Tensor&, const SgdStepParams&) {
  op_missing("sgd_step", param);
}
void Backend::adam_step(const Tensor& param, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                        const AdamStepParams&) {
  op_missing("adam_step", param);
}
void Backend::non_finite_check_and_unscale(const Tensor& grad, const Tensor&, float) {
  op_missing("non_finite_check_and_unscale", grad);
}

}  // namespace brisk
