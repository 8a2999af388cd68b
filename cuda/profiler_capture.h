#pragma once
// The capture range of an external CUDA profiler, as torch.cuda.profiler.start() and stop():
// cudaProfilerStart and cudaProfilerStop. `ncu --profile-from-start off` and
// `nsys profile --capture-range=cudaProfilerApi` record only the GPU work between the two (one
// training step, say, not the warm-up and algorithm search before it); outside such a profiler
// both do nothing. Free of CUDA headers; in a build without CUDA both raise "built without CUDA".
namespace brisk::cuda {

// Opens the capture range of the current device's context.
void profiler_start();
// Closes it.
void profiler_stop();

}  // namespace brisk::cuda
