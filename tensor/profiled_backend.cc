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

}  // namespace

#define BRISK_PROFILED_FORWARD(name, params, args, event, inputs)                         \
  void ProfiledBackend::name params {                                                     \
    profiler::RecordScope scope(profiler::Category::Op, event,                            \
                                [&] { return describe({BRISK_BACKEND_UNPACK inputs}); }); \
    inner_.name args;                                                                     \
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
