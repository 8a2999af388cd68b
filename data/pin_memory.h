#pragma once
// Page-locked ("pinned") host memory for batches, so that copying them to a GPU can run
// asynchronously (DataLoaderOptions::pin_memory). The memory comes from the pinned allocator
// that //cuda registers (pinned_allocator_for in tensor/allocator.h).
#include "data/example.h"
#include "tensor/device.h"

namespace brisk::data {

// The batch with its CPU tensors copied into pinned memory (tensors not on the CPU are kept),
// allocated in the context of the CUDA device `device` whatever the calling thread's current
// device: a thread that never chose one would create a context on GPU 0, on every rank
// (PyTorch's pin_memory_device). Raises brisk::Error saying why when pinned memory cannot be
// had (a build without CUDA, a machine without a GPU) or when `device` is not a CUDA device.
Batch pin_memory(const Batch& batch, Device device);

// Raises brisk::Error, naming `what` and the reason, unless pinned memory can be had.
void check_pin_memory_available(const char* what);

// The device batches are pinned for when none is given: the calling thread's current CUDA
// device (what a training program chose with cuda::set_device).
Device default_pin_memory_device();

}  // namespace brisk::data
