#include "tensor/device.h"

#include "tensor/error.h"

namespace brisk {

Device::Device(const std::string& spec) {
  if (spec == "cpu") {
    type = DeviceType::CPU;
    index = 0;
    return;
  }
  if (spec.rfind("cuda", 0) == 0) {
    type = DeviceType::CUDA;
    index = 0;
    if (spec.size() == 4) return;
    if (spec[4] == ':' && spec.size() > 5 && spec.find_first_not_of("0123456789", 5) == std::string::npos) {
      index = std::stoi(spec.substr(5));
      return;
    }
  }
  BRISK_FAIL("invalid device string '{}': expected 'cpu', 'cuda' or 'cuda:N'", spec);
}

std::string Device::str() const { return is_cpu() ? "cpu" : fmt::format("cuda:{}", index); }

}  // namespace brisk
