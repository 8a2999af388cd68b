#include "cuda/device.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <nccl.h>

#include <string>

#include "cuda/error.h"
#include "tensor/graphs/capture_state.h"

// Set by //cuda's BUILD from tools/build/cuda.bzl: the architectures of the .cu objects.
#define BRISK_STRINGIFY(...) #__VA_ARGS__
#define BRISK_EXPAND_STRINGIFY(...) BRISK_STRINGIFY(__VA_ARGS__)

namespace brisk::cuda {
namespace {

// What the first CUDA call of the process found. Probed once: the answer cannot change
// while the process runs, and cudaGetDeviceCount is not free.
struct Probe {
  int count = 0;
  // Why no device can be used; empty when count > 0.
  std::string reason;
};

std::string describe(cudaError_t status) {
  return fmt::format("{}: {}", cudaGetErrorName(status), cudaGetErrorString(status));
}

const Probe& probe() {
  static const Probe result = [] {
    Probe p;
    cudaError_t status = cudaGetDeviceCount(&p.count);
    if (status != cudaSuccess) {
      cudaGetLastError();
      p.count = 0;
    }
    switch (status) {
      case cudaSuccess:
        if (p.count == 0) p.reason = "no CUDA GPU present";
        break;
      case cudaErrorNoDevice: p.reason = "no CUDA GPU present (" + describe(status) + ")"; break;
      case cudaErrorInsufficientDriver:
      case cudaErrorSystemDriverMismatch:
      case cudaErrorCompatNotSupportedOnDevice:
        p.reason = "no CUDA driver found / driver too old for CUDA " + std::to_string(CUDART_VERSION / 1000) + "." +
                   std::to_string(CUDART_VERSION % 1000 / 10) + ": " + describe(status);
        break;
      default: p.reason = "CUDA failed to initialize: " + describe(status);
    }
    return p;
  }();
  return result;
}

std::string version_string(int major, int minor, int patch) { return fmt::format("{}.{}.{}", major, minor, patch); }

std::string cuda_version_string(int v) { return fmt::format("{}.{}", v / 1000, v % 1000 / 10); }

std::string devices_report() {
  const Probe& p = probe();
  if (p.count == 0) return "  devices: none: " + p.reason + "\n";
  std::string out = fmt::format("  devices: {}\n", p.count);
  for (int d = 0; d < p.count; ++d) {
    cudaDeviceProp prop;
    BRISK_CUDA_CHECK(cudaGetDeviceProperties(&prop, d));
    out += fmt::format("    cuda:{}: {}, sm_{}{}, {:.1f} GiB, {} SMs\n", d, prop.name, prop.major, prop.minor,
                       static_cast<double>(prop.totalGlobalMem) / (1 << 30), prop.multiProcessorCount);
  }
  return out;
}

}  // namespace

bool is_available() { return probe().count > 0; }

int device_count() { return probe().count; }

std::string unavailable_reason() { return probe().reason; }

void check_device(int device) {
  const Probe& p = probe();
  BRISK_CHECK(p.count > 0, "cuda:{} requested, but {}", device, p.reason);
  BRISK_CHECK(device >= 0 && device < p.count, "cuda:{} requested, but only {} CUDA device{} present (cuda:0..cuda:{})",
              device, p.count, p.count == 1 ? " is" : "s are", p.count - 1);
}

int current_device() {
  check_device(0);
  int device = 0;
  BRISK_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

void set_device(int device) {
  check_device(device);
  BRISK_CUDA_CHECK(cudaSetDevice(device));
}

void synchronize(int device) {
  graphs::check_not_capturing(cuda_device(device), "synchronize",
                              "the host cannot wait for work that is only being recorded; synchronize after replay()");
  DeviceGuard guard(device);
  BRISK_CUDA_CHECK(cudaDeviceSynchronize());
}

void synchronize() { synchronize(current_device()); }

DeviceGuard::DeviceGuard(int device) : previous_(current_device()), device_(device) {
  if (device_ != previous_) set_device(device_);
}

DeviceGuard::~DeviceGuard() {
  // A destructor must not throw; the device was valid when the guard was made.
  if (device_ != previous_) cudaSetDevice(previous_);
}

std::string build_info() {
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  int cublas[3] = {0, 0, 0};
  cublasGetProperty(MAJOR_VERSION, &cublas[0]);
  cublasGetProperty(MINOR_VERSION, &cublas[1]);
  cublasGetProperty(PATCH_LEVEL, &cublas[2]);
  size_t cudnn = cudnnGetVersion();
  int nccl = 0;
  ncclGetVersion(&nccl);

  std::string out = "Brisk built with CUDA\n";
  out += fmt::format("  CUDA runtime: {} (compiled against {})\n", cuda_version_string(runtime),
                     cuda_version_string(CUDART_VERSION));
  out +=
      fmt::format("  CUDA driver: {}\n", driver == 0 ? "none found" : "supports CUDA " + cuda_version_string(driver));
  out += fmt::format("  cuBLAS: {}\n", version_string(cublas[0], cublas[1], cublas[2]));
  out += fmt::format("  cuDNN: {} (compiled against {})\n",
                     version_string(cudnn / 10000, cudnn % 10000 / 100, cudnn % 100),
                     version_string(CUDNN_MAJOR, CUDNN_MINOR, CUDNN_PATCHLEVEL));
  out += fmt::format("  NCCL: {} (compiled against {})\n", version_string(nccl / 10000, nccl % 10000 / 100, nccl % 100),
                     version_string(NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH));
  out += fmt::format("  GPU code: {}\n", BRISK_EXPAND_STRINGIFY(BRISK_CUDA_ARCHS));
  return out + devices_report();
}

}  // namespace brisk::cuda
