#pragma once
// Where a tensor's memory lives: the host, one CUDA device, or one simulated device.
//
// The simulated device ("sim:N", //tensor/sim) is an accelerator made of host memory that
// host code cannot dereference, run by the CPU kernels. It exists so that device-generic
// code (placement, process-group contracts, host synchronizations) is tested on machines
// without a GPU: code that reads a device tensor through a host pointer, or mixes devices,
// fails on it as it would on CUDA.
#include <fmt/format.h>

#include <string>

#include "brisk/requires_cxx17.h"

namespace brisk {

enum class DeviceType : uint8_t { CPU, CUDA, Sim };

struct Device {
  DeviceType type = DeviceType::CPU;
  int index = 0;  // CUDA or sim ordinal; always 0 for CPU

  Device() = default;
  Device(DeviceType t, int i = 0) : type(t), index(t == DeviceType::CPU ? 0 : i) {}
  // Parses "cpu", "cuda", "cuda:1", "sim", "sim:1".
  Device(const std::string& spec);
  Device(const char* spec) : Device(std::string(spec)) {}

  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  bool is_sim() const { return type == DeviceType::Sim; }
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  // "cpu", "cuda:N" or "sim:N".
  std::string str() const;
};

inline const Device kCPU{DeviceType::CPU, 0};
// libtorch's device type constant: Device(kCUDA, 1), t.to(kCUDA). As "cuda", it names cuda:0,
// not the current device.
constexpr DeviceType kCUDA = DeviceType::CUDA;
inline Device cuda_device(int index = 0) { return Device(DeviceType::CUDA, index); }
inline Device sim_device(int index = 0) { return Device(DeviceType::Sim, index); }

}  // namespace brisk

template <>
struct fmt::formatter<brisk::Device> : fmt::formatter<std::string> {
  template <typename Ctx>
  auto format(const brisk::Device& d, Ctx& ctx) const {
    return fmt::formatter<std::string>::format(d.str(), ctx);
  }
};
