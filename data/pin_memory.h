#pragma once
// Page-locked ("pinned") host memory for batches, so that copying them to a GPU can run
// asynchronously (DataLoaderOptions::pin_memory).
#include "data/example.h"

namespace brisk::data {

// The batch with its CPU tensors copied into pinned memory (tensors already pinned, or not
// on the CPU, are kept). Raises brisk::Error saying why when CUDA cannot be used, e.g. in a
// build without CUDA or on a machine without a GPU.
Batch pin_memory(const Batch& batch);

// Raises brisk::Error, naming `what` and the reason, unless pinned memory can be had.
void check_pin_memory_available(const char* what);

}  // namespace brisk::data
