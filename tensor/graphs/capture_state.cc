#include "tensor/graphs/capture_state.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

#include "tensor/error.h"

namespace brisk::graphs {
namespace {

// Read by every copy and random op: the atomic keeps the common case (no capture anywhere)
// free of the lock.
std::atomic<int> captures_underway{0};
std::mutex mutex;
std::vector<Device> capturing_devices;

}  // namespace

bool is_capturing(Device device) {
  if (captures_underway.load(std::memory_order_acquire) == 0) return false;
  std::lock_guard<std::mutex> lock(mutex);
  return std::find(capturing_devices.begin(), capturing_devices.end(), device) != capturing_devices.end();
}

void check_not_capturing(Device device, const char* what, const char* why) {
  BRISK_CHECK(!is_capturing(device), "{} on {} during graph capture: {}", what, device, why);
}

namespace detail {

void set_capturing(Device device, bool capturing) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = std::find(capturing_devices.begin(), capturing_devices.end(), device);
  if (capturing == (it != capturing_devices.end())) return;
  if (capturing) {
    capturing_devices.push_back(device);
  } else {
    capturing_devices.erase(it);
  }
  captures_underway.fetch_add(capturing ? 1 : -1, std::memory_order_release);
}

}  // namespace detail
}  // namespace brisk::graphs
