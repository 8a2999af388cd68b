#include "autograd/autocast.h"

#include "tensor/error.h"

namespace brisk {
namespace {

struct DeviceAutocast {
  bool enabled = false;
  DType dtype;
};

size_t slot(DeviceType t) { return static_cast<size_t>(t); }

// Per device type: CPU, CUDA, Sim (DeviceType's order).
thread_local std::array<DeviceAutocast, 3> state{
    {{false, kBFloat16}, {false, kFloat16}, {false, kFloat16}},
};
thread_local int enabled_device_types = 0;

void set_enabled(DeviceType t, bool enabled) {
  DeviceAutocast& s = state[slot(t)];
  enabled_device_types += static_cast<int>(enabled) - static_cast<int>(s.enabled);
  s.enabled = enabled;
}

}  // namespace

bool is_autocast_enabled(DeviceType device_type) { return state[slot(device_type)].enabled; }

DType get_autocast_dtype(DeviceType device_type) { return state[slot(device_type)].dtype; }

autocast::autocast(Device device_type, std::optional<DType> dtype, bool enabled)
    : device_type_(device_type.type),
      previous_enabled_(is_autocast_enabled(device_type_)),
      previous_dtype_(get_autocast_dtype(device_type_)) {
  if (dtype) {
    BRISK_CHECK(*dtype == kBFloat16 || *dtype == kFloat16,
                "autocast: dtype {} is not a lower precision for {} (use bfloat16 or float16)", *dtype, device_type);
    state[slot(device_type_)].dtype = *dtype;
  }
  set_enabled(device_type_, enabled);
}

autocast::~autocast() {
  set_enabled(device_type_, previous_enabled_);
  state[slot(device_type_)].dtype = previous_dtype_;
}

}  // namespace brisk

namespace brisk::autograd {

namespace detail {
namespace {

// PyTorch's is_autocast_eligible, less float64, which autocast never casts.
bool eligible(const Tensor& t, DeviceType device_type) {
  return t.defined() && t.is_floating_point() && t.dtype() != kFloat64 && t.device().type == device_type;
}

// The device type whose autocast state applies: the first input not on the CPU, else the
// CPU (a 0-dim CPU tensor may join CUDA operands).
std::optional<DeviceType> inputs_device_type(const Tensor* const* inputs, size_t n) {
  std::optional<DeviceType> found;
  for (size_t i = 0; i < n; ++i) {
    if (!inputs[i]->defined()) continue;
    if (!inputs[i]->device().is_cpu()) return inputs[i]->device().type;
    found = DeviceType::CPU;
  }
  return found;
}

// The widest of the autocast dtype and the eligible inputs' dtypes: float32 as soon as one
// is float32, or when bfloat16 meets float16 (PyTorch's promote_type).
DType promoted_dtype(DType lower, const Tensor* const* inputs, size_t n, DeviceType device_type) {
  DType widest = lower;
  for (size_t i = 0; i < n; ++i) {
    if (eligible(*inputs[i], device_type) && inputs[i]->dtype() != widest) widest = kFloat32;
  }
  return widest;
}

}  // namespace

bool autocast_on_anywhere() { return enabled_device_types > 0; }

bool AutocastScope::apply(AutocastPolicy policy, const Tensor* const* inputs, Tensor* cast, size_t n) {
  std::optional<DeviceType> device_type = inputs_device_type(inputs, n);
  if (!device_type || !is_autocast_enabled(*device_type)) return false;
  CastPolicy here = policy.on(*device_type);
  if (here == CastPolicy::None) return false;
  DType lower = get_autocast_dtype(*device_type);
  DType target = here == CastPolicy::LowerPrecision ? lower
                 : here == CastPolicy::Float32      ? kFloat32
                                                    : promoted_dtype(lower, inputs, n, *device_type);
  for (size_t i = 0; i < n; ++i) {
    cast[i] = eligible(*inputs[i], *device_type) ? inputs[i]->to(target) : *inputs[i];
  }
  off_.emplace(Device(*device_type), std::nullopt, false);
  return true;
}

}  // namespace detail

AutocastInputList::AutocastInputList(AutocastOp op, const std::vector<Tensor>& inputs) : inputs_(&inputs) {
  if (!detail::autocast_on_anywhere()) return;
  std::vector<const Tensor*> pointers;
  for (const Tensor& t : inputs) pointers.push_back(&t);
  cast_.resize(inputs.size());
  cast_applied_ = scope_.apply(autocast_policy(op), pointers.data(), cast_.data(), inputs.size());
}

}  // namespace brisk::autograd
