#include "tensor/device.h"

#include "tensor/error.h"

namespace brisk {

namespace {

// "<name>" or "<name>:N"; false when spec is neither.
bool parse_indexed(const std::string& spec, const std::string& name, int& index) {
  if (spec.rfind(name, 0) != 0) return false;
  const size_t n = name.size();
  index = 0;
  if (spec.size() == n) return true;
  if (spec[n] != ':' || spec.size() == n + 1 || spec.size() > n + 6 ||
      spec.find_first_not_of("0123456789", n + 1) != std::string::npos)
    return false;
  index = std::stoi(spec.substr(n + 1));
  return true;
}

}  // namespace

Device::Device(const std::string& spec) {
  if (parse_indexed(spec, "cuda", index)) {
    type = DeviceType::CUDA;
  } else if (parse_indexed(spec, "sim", index)) {
    type = DeviceType::Sim;
  } else {
    BRISK_CHECK(spec == "cpu", "invalid device string '{}': expected 'cpu', 'cuda', 'cuda:N', 'sim' or 'sim:N'", spec);
  }
}

std::string Device::str() const {
  switch (type) {
    case DeviceType::CPU: return "cpu";
    case DeviceType::CUDA: return fmt::format("cuda:{}", index);
    case DeviceType::Sim: return fmt::format("sim:{}", index);
  }
  return "?";
}

}  // namespace brisk
