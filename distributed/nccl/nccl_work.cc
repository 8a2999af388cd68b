#include "distributed/nccl/nccl_work.h"

#include "cuda/device.h"
#include "cuda/stream.h"

namespace brisk::dist {

WorkNCCL::WorkNCCL(std::string label, int64_t seq, int device, std::vector<Tensor> tensors, bool blocking)
    : label_(std::move(label)), seq_(seq), device_(device), tensors_(std::move(tensors)), blocking_(blocking) {}

void WorkNCCL::record_end(cudaStream_t stream) { end_.record(stream); }

bool WorkNCCL::is_completed() { return end_.query(); }

void WorkNCCL::wait() {
  cuda::DeviceGuard guard(device_);
  end_.wait(cuda::current_stream(device_));
  if (blocking_) end_.synchronize();
}

}  // namespace brisk::dist
