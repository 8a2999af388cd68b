#pragma once
// Page-locked ("pinned") host memory for batches, so that copying them to a GPU can run
// asynchronously (DataLoaderOptions::pin_memory).
#include "data/example.h"
#include "tensor/device.h"

namespace brisk::data {

// The batch with its CPU tensors copied into pinned memory (tensors already pinned, or not on
// the CPU, are kept), for copies to the CUDA device `device`. The calling thread makes
// `device` its current device while it pins (and restores its own after): pinned memory is
// allocated in the current device's context, and a thread that never chose a device would
// create one on GPU 0, on every rank (PyTorch's pin_memory_device). Raises brisk::Error
// saying why when CUDA cannot be used, e.g. in a build without CUDA or on a machine without
// a GPU, or when `device` is not a CUDA device.
Batch pin_memory(const Batch& batch, Device device);

// Raises brisk::Error, naming `what` and the reason, unless pinned memory can be had.
void check_pin_memory_available(const char* what);

// The device batches are pinned for when none is given: the calling thread's current CUDA
// device (what a training program chose with cuda::set_device).
Device default_pin_memory_device();

}  // namespace brisk::data
