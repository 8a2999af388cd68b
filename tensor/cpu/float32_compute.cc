#include "tensor/cpu/float32_compute.h"

#include "tensor/native/ops.h"

namespace brisk::cpu {

Tensor as_float32(const Tensor& t) {
  return t.defined() && is_reduced_float(t.dtype()) ? native::to(t, t.device(), kFloat32) : t;
}

Float32Results::Float32Results(std::vector<Tensor> outputs) : outputs_(std::move(outputs)) {
  for (const Tensor& out : outputs_) stand_ins_.push_back(as_float32(out));
}

void Float32Results::write_back() {
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (stand_ins_[i].defined() && stand_ins_[i].dtype() != outputs_[i].dtype()) {
      Tensor dst = outputs_[i];
      native::copy_(dst, stand_ins_[i]);
    }
  }
}

}  // namespace brisk::cpu
