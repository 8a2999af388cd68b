#pragma once
// The one place that turns host memory into simulated device memory and back.
//
// A sim tensor's Storage holds a *device pointer*: the host address of its memory with bit 55
// set. On x86-64 that address is non-canonical and on AArch64 it points into the kernel half
// (top-byte-ignore covers bits 56-63 only), so any host load or store through it faults, as
// a host read of CUDA memory does. Only the sim backend, which stands for the device's
// kernels, converts back to host addresses.
#include "tensor/tensor.h"

namespace brisk::sim {

// The device pointer of host memory, and the host memory behind a device pointer.
void* to_device_pointer(void* host);
void* to_host_pointer(const void* device);
// Whether `p` is a device pointer of the simulated device.
bool is_device_pointer(const void* p);

// A CPU tensor over the host memory of the sim tensor `t`: same sizes, strides, offset and
// dtype; it keeps t's storage alive. Undefined for an undefined `t`.
Tensor host_alias(const Tensor& t);

}  // namespace brisk::sim
