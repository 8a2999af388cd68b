#pragma once
// Hooks that decide how the tensors saved for backward are kept, as PyTorch's
// torch.autograd.graph.saved_tensors_hooks. While a SavedTensorsHooks guard is alive on a
// thread, every defined tensor an op on that thread saves for its backward is handed to
// `pack`, and what pack returns is kept instead of the tensor; when backward needs the tensor,
// it hands that value to `unpack`, the hook in force when the tensor was packed.
//
//   // Keep saved activations on the CPU (offloading), bring them back for backward:
//   autograd::SavedTensorsHooks offload(
//       [](const Tensor& t) -> std::any { return t.to(kCPU); },
//       [device](const std::any& packed) { return std::any_cast<Tensor>(packed).to(device); });
//
// Guards nest: the innermost one packs. A tensor kept through hooks is not checked against
// in-place changes (its version counter lives with its memory, which the hooks may have let
// go): that is the hooks' business. nn::utils::checkpoint is built on these hooks.
#include <any>
#include <functional>
#include <memory>

#include "tensor/tensor.h"

namespace brisk::autograd {

using PackHook = std::function<std::any(const Tensor&)>;
using UnpackHook = std::function<Tensor(const std::any&)>;

struct SavedTensorsHookPair {
  PackHook pack;
  UnpackHook unpack;
};

class SavedTensorsHooks {
 public:
  SavedTensorsHooks(PackHook pack, UnpackHook unpack);
  ~SavedTensorsHooks();
  SavedTensorsHooks(const SavedTensorsHooks&) = delete;
  SavedTensorsHooks& operator=(const SavedTensorsHooks&) = delete;

 private:
  std::shared_ptr<const SavedTensorsHookPair> previous_;
};

// The hooks in force on this thread (the innermost guard's), or nullptr.
std::shared_ptr<const SavedTensorsHookPair> current_saved_tensors_hooks();

}  // namespace brisk::autograd
