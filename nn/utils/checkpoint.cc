#include "nn/utils/checkpoint.h"

#include <any>
#include <memory>
#include <utility>
#include <vector>

#include "autograd/autocast.h"
#include "autograd/grad_mode.h"
#include "autograd/saved_tensors_hooks.h"
#include "tensor/error.h"
#include "tensor/generator.h"

namespace brisk::nn::utils {
namespace {

// What the forward ran under and its recomputation must run under again: the generator (so
// that dropout draws the same masks) and autocast's state per device type (so that the
// recomputation chooses the forward's precisions, although backward runs with autocast off).
struct ForwardState {
  bool preserve_rng_state = true;
  Generator::State rng;
  struct Autocast {
    DeviceType device_type;
    bool enabled;
    DType dtype;
  };
  std::vector<Autocast> autocast;
};

constexpr DeviceType kAutocastDeviceTypes[] = {DeviceType::CPU, DeviceType::CUDA, DeviceType::Sim};

ForwardState capture_forward_state(bool preserve_rng_state) {
  ForwardState state;
  state.preserve_rng_state = preserve_rng_state;
  if (preserve_rng_state) state.rng = default_generator().get_state();
  for (DeviceType t : kAutocastDeviceTypes)
    state.autocast.push_back({t, is_autocast_enabled(t), get_autocast_dtype(t)});
  return state;
}

// Puts the forward's state in force for a scope, and restores what was in force before, so that
// backward leaves the generator where it was (torch's fork_rng).
class ForwardStateScope {
 public:
  explicit ForwardStateScope(const ForwardState& state)
      : restore_rng_(state.preserve_rng_state), rng_before_(default_generator().get_state()) {
    if (restore_rng_) default_generator().set_state(state.rng);
    for (const ForwardState::Autocast& a : state.autocast)
      autocast_.push_back(std::make_unique<autocast>(Device(a.device_type), a.dtype, a.enabled));
  }
  ~ForwardStateScope() {
    if (restore_rng_) default_generator().set_state(rng_before_);
  }
  ForwardStateScope(const ForwardStateScope&) = delete;
  ForwardStateScope& operator=(const ForwardStateScope&) = delete;

 private:
  bool restore_rng_;
  Generator::State rng_before_;
  std::vector<std::unique_ptr<autocast>> autocast_;  // restore the previous state when destroyed
};

struct SavedMetadata {
  Shape sizes;
  DType dtype;
};

// One checkpointed call: its function and inputs, what the forward saved (only the shapes and
// dtypes), and the tensors the recomputation saved until backward takes them.
struct Frame {
  CheckpointFunction fn;
  TensorList inputs;
  std::vector<uint32_t> input_versions;
  ForwardState state;
  std::vector<SavedMetadata> forward_saved;
  std::vector<Tensor> recomputed;  // by the index the forward packed; emptied as unpacked

  size_t pack_forward(const Tensor& t) {
    forward_saved.push_back({t.sizes(), t.dtype()});
    return forward_saved.size() - 1;
  }

  Tensor unpack(size_t index) {
    if (!recomputed[index].defined()) recompute();
    return std::move(recomputed[index]);
  }

  void recompute() {
    TensorList detached;
    detached.reserve(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Tensor& x = inputs[i];
      if (!x.defined()) {
        detached.push_back(x);
        continue;
      }
      BRISK_CHECK(x.version() == input_versions[i],
                  "checkpoint: input {} ({}) was modified in place after the checkpointed forward (version {}, "
                  "expected {}); its recomputation would not match. clone() it before modifying it.",
                  i, x.describe(), x.version(), input_versions[i]);
      Tensor d = x.detach();
      if (x.requires_grad()) d.requires_grad_(true);
      detached.push_back(std::move(d));
    }
    std::vector<Tensor> saved;
    {
      ForwardStateScope scope(state);
      autograd::EnableGradGuard grad_mode;
      autograd::SavedTensorsHooks hooks(
          [&saved](const Tensor& t) -> std::any {
            saved.push_back(t);
            return {};
          },
          [](const std::any&) -> Tensor {
            BRISK_FAIL("checkpoint: the graph of a recomputation was walked by backward; it never should be");
          });
      fn(detached);
    }
    BRISK_CHECK(saved.size() == forward_saved.size(),
                "checkpoint: the recomputation saved {} tensors for backward, the forward {}: the checkpointed "
                "function must run the same ops when run again",
                saved.size(), forward_saved.size());
    for (size_t i = 0; i < saved.size(); ++i) {
      BRISK_CHECK(saved[i].sizes() == forward_saved[i].sizes && saved[i].dtype() == forward_saved[i].dtype,
                  "checkpoint: saved tensor {} of the recomputation is {} {}, the forward's was {} {}: the "
                  "checkpointed function must compute the same shapes and dtypes when run again",
                  i, saved[i].dtype(), saved[i].sizes(), forward_saved[i].dtype, forward_saved[i].sizes);
    }
    recomputed = std::move(saved);
  }
};

}  // namespace

TensorList checkpoint(const CheckpointFunction& fn, const TensorList& inputs, bool preserve_rng_state) {
  auto frame = std::make_shared<Frame>();
  frame->fn = fn;
  frame->inputs = inputs;
  for (const Tensor& x : inputs) frame->input_versions.push_back(x.defined() ? x.version() : 0);
  frame->state = capture_forward_state(preserve_rng_state);
  autograd::SavedTensorsHooks hooks(
      [frame](const Tensor& t) -> std::any { return frame->pack_forward(t); },
      [frame](const std::any& packed) { return frame->unpack(std::any_cast<size_t>(packed)); });
  TensorList outputs = fn(inputs);
  frame->recomputed.resize(frame->forward_saved.size());
  return outputs;
}

Tensor checkpoint(const std::function<Tensor(const Tensor&)>& fn, const Tensor& input, bool preserve_rng_state) {
  return checkpoint([fn](const TensorList& in) { return TensorList{fn(in[0])}; }, TensorList{input},
                    preserve_rng_state)[0];
}

Tensor checkpoint_sequential(const SequentialImpl& modules, int segments, const Tensor& input,
                             bool preserve_rng_state) {
  const size_t n = modules.size();
  BRISK_CHECK(segments >= 1 && static_cast<size_t>(segments) <= n,
              "checkpoint_sequential: {} segments asked of a Sequential of {} modules (1 to {} possible)", segments, n,
              n);
  const size_t segment_size = n / static_cast<size_t>(segments);
  Tensor x = input;
  size_t begin = 0;
  for (int s = 0; s + 1 < segments; ++s, begin += segment_size) {
    const size_t end = begin + segment_size;
    x = checkpoint([&modules, begin, end](const Tensor& in) { return modules.forward_range(begin, end, in); }, x,
                   preserve_rng_state);
  }
  return modules.forward_range(begin, n, x);
}

}  // namespace brisk::nn::utils
