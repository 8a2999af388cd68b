#pragma once
// The simulated device's kernel of an op, made from its CPU kernel, so that an extension's
// device path (the right kernel per device, results on the arguments' device, no host
// dereference of device memory anywhere else) is tested on sim:N without a GPU:
//
//   BRISK_LIBRARY_IMPL(myext, Sim, m) { m.impl("scaled_silu", library::sim_kernel_from_cpu(&scaled_silu_cpu)); }
//
// The adapter stands for a device kernel as the simulated device's backend does for Brisk's
// own ops: the CPU kernel gets each sim tensor argument as its host alias (sim::host_alias: a
// CPU tensor over the same memory, so in-place writes reach the device tensor), and its
// results are copied to the device of the arguments.
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "library/signature.h"
#include "tensor/sim/sim_memory.h"

namespace brisk::library {

template <typename R, typename... P>
struct SimKernelFromCpu {
  R (*cpu_kernel)(P...);
};

template <typename R, typename... P>
SimKernelFromCpu<R, P...> sim_kernel_from_cpu(R (*cpu_kernel)(P...)) {
  return {cpu_kernel};
}

namespace detail {

inline Tensor to_host(const Tensor& t) { return t.defined() && t.device().is_sim() ? sim::host_alias(t) : t; }
inline std::vector<Tensor> to_host(const std::vector<Tensor>& list) {
  std::vector<Tensor> host;
  host.reserve(list.size());
  for (const Tensor& t : list) host.push_back(to_host(t));
  return host;
}
template <typename NotATensor>
const NotATensor& to_host(const NotATensor& value) {
  return value;
}

inline void find_device(std::optional<Device>& device, const Tensor& t) {
  if (!device && t.defined()) device = t.device();
}
inline void find_device(std::optional<Device>& device, const std::vector<Tensor>& list) {
  for (const Tensor& t : list) find_device(device, t);
}
template <typename NotATensor>
void find_device(std::optional<Device>&, const NotATensor&) {}

inline Tensor to_device(const Tensor& t, Device device) { return t.defined() ? t.to(device) : t; }
inline std::vector<Tensor> to_device(const std::vector<Tensor>& list, Device device) {
  std::vector<Tensor> moved;
  moved.reserve(list.size());
  for (const Tensor& t : list) moved.push_back(to_device(t, device));
  return moved;
}
template <typename... Ts>
std::tuple<Ts...> to_device(const std::tuple<Ts...>& results, Device device) {
  return std::apply([&](const auto&... t) { return std::tuple<Ts...>(to_device(t, device)...); }, results);
}

// The invoker of a SimKernelFromCpu<R, P...> (its pointer is the CPU kernel's).
template <typename R, typename... P>
R invoke_cpu_kernel_on_sim(ErasedFunction cpu_kernel, passed_as_t<P>... args) {
  std::optional<Device> device;
  (find_device(device, args), ...);
  R results = invoke_kernel<R, P...>(cpu_kernel, to_host(args)...);
  return device ? to_device(results, *device) : results;
}

}  // namespace detail
}  // namespace brisk::library
