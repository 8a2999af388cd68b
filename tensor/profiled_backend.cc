#include "tensor/profiled_backend.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <mutex>
#include <string>
#include <vector>

#include "profiler/record.h"

namespace brisk {
namespace {

// "Input Dims" and "Input type" as PyTorch's trace names them (undefined tensors show as [], a
// list as the list of its tensors' dims and the type TensorList), and the device of the first
// (where a GPU time is taken: cuda/profiler_ranges.cc).
class Description {
 public:
  void add(const Tensor* t) {
    separate();
    dims_ += dims_of(*t);
    types_ += t->defined() ? dtype_name(t->dtype()) : "";
    if (device_.empty() && t->defined()) device_ = t->device().str();
  }
  void add(const std::vector<Tensor>* list) {
    separate();
    std::string dims;
    for (const Tensor& t : *list) dims += (dims.empty() ? "" : ", ") + dims_of(t);
    dims_ += "[" + dims + "]";
    types_ += "TensorList";
    if (device_.empty() && !list->empty()) device_ = list->front().device().str();
  }
  profiler::Args args() const {
    return {{"Input Dims", "[" + dims_ + "]"}, {"Input type", types_}, {"device", device_}};
  }

 private:
  static std::string dims_of(const Tensor& t) { return t.defined() ? fmt::format("{}", t.sizes()) : "[]"; }
  void separate() {
    if (!dims_.empty()) dims_ += ", ", types_ += ", ";
  }
  std::string dims_, types_, device_;
};

template <typename... Inputs>
profiler::Args describe(const Inputs*... inputs) {
  Description description;
  (description.add(inputs), ...);
  return description.args();
}

}  // namespace

#define BRISK_PROFILED_FORWARD(name, params, args, event, inputs)                                                      \
  void ProfiledBackend::name params {                                                                                  \
    profiler::RecordScope scope(profiler::Category::Op, event, [&] { return describe(BRISK_BACKEND_UNPACK inputs); }); \
    inner_.name args;                                                                                                  \
  }
BRISK_BACKEND_METHODS(BRISK_PROFILED_FORWARD)
#undef BRISK_PROFILED_FORWARD

Backend& profiled_backend(DeviceType type, Backend& inner) {
  static std::array<std::once_flag, 3> made;
  static std::array<ProfiledBackend*, 3> wrappers{};
  auto slot = static_cast<size_t>(type);
  std::call_once(made.at(slot), [&] { wrappers[slot] = new ProfiledBackend(inner); });  // lives as long as backends
  return *wrappers[slot];
}

}  // namespace brisk
