// torch.result_type and the common device of an op's operands.
#include "tensor/native/ops.h"

namespace brisk::native {
namespace {

// PyTorch's ResultTypeState: operands promote within three priority classes, dimensioned
// tensors > zero-dim tensors > Python numbers (Scalars); a lower class changes the result
// only when it is of a higher category (bool < integral < floating point).
struct ResultTypeState {
  std::optional<DType> dimensioned, zero_dim, scalar;

  static void promote(std::optional<DType>& slot, DType t) { slot = slot ? promote_types(*slot, t) : t; }

  void add(const Tensor& t) {
    if (!t.defined()) return;
    promote(t.dim() == 0 ? zero_dim : dimensioned, t.dtype());
  }
  // A Python float counts as the default dtype (float32), an int as int64.
  void add(Scalar s) { promote(scalar, s.is_floating_point() ? kFloat32 : s.dtype()); }

  static std::optional<DType> combine(std::optional<DType> higher, std::optional<DType> lower) {
    if (!higher) return lower;
    if (!lower || is_floating_point(*higher)) return higher;
    if (*higher == kBool || is_floating_point(*lower)) return promote_types(*higher, *lower);
    return higher;
  }

  DType result() const {
    auto r = combine(dimensioned, combine(zero_dim, scalar));
    BRISK_CHECK(r.has_value(), "result_type: no operands");
    return *r;
  }
};

}  // namespace

DType result_type(const std::vector<Tensor>& tensors, const std::vector<Scalar>& scalars) {
  ResultTypeState state;
  for (const Tensor& t : tensors) state.add(t);
  for (Scalar s : scalars) state.add(s);
  return state.result();
}

DType result_type(const Tensor& a, const Tensor& b) { return result_type(std::vector<Tensor>{a, b}); }

DType result_type(const Tensor& a, Scalar b) { return result_type(std::vector<Tensor>{a}, std::vector<Scalar>{b}); }

Device common_device(const char* op, const std::vector<Tensor>& tensors) {
  // Like PyTorch, a 0-dim CPU tensor (a number in tensor form) may join tensors on a GPU.
  std::optional<Device> device;
  const Tensor* first = nullptr;
  for (const Tensor& t : tensors) {
    if (!t.defined() || (t.dim() == 0 && t.is_cpu())) continue;
    if (!device) {
      device = t.device();
      first = &t;
      continue;
    }
    BRISK_CHECK(t.device() == *device,
                "{}: expected all tensors to be on the same device, but found at least two devices, {} ({}) and {} "
                "({})",
                op, *device, first->describe(), t.device(), t.describe());
  }
  if (device) return *device;
  for (const Tensor& t : tensors) {
    if (t.defined()) return t.device();
  }
  BRISK_FAIL("{}: no defined tensor among the operands", op);
}

}  // namespace brisk::native
