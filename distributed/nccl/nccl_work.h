#pragma once
// WorkNCCL: the Work of one NCCL operation, marked by an event recorded on the group's
// stream after it (see process_group_nccl.h). Internal to //distributed/nccl.
#include <chrono>
#include <string>
#include <vector>

#include "cuda/event.h"
#include "distributed/work.h"
#include "tensor/tensor.h"

namespace brisk::dist {

class WorkNCCL : public Work {
 public:
  using Clock = std::chrono::steady_clock;

  // `label` names the operation in errors ("all_reduce #12 (...)"); `seq` is its number
  // among the group's collectives (-1 for send/recv); `tensors` stay alive with the Work;
  // `blocking`: wait() also blocks the host (barrier).
  WorkNCCL(std::string label, int64_t seq, int device, std::vector<Tensor> tensors, bool blocking);

  // Marks the end of the operation, queued on `stream` just before.
  void record_end(cudaStream_t stream);

  bool is_completed() override;
  // Completed means succeeded: a failed operation ends the process (see the watchdog).
  bool is_success() override { return is_completed(); }
  // The caller's current stream waits for the operation (the host too when blocking).
  void wait() override;

  const std::string& label() const { return label_; }
  int64_t seq() const { return seq_; }
  Clock::time_point start() const { return start_; }

 private:
  std::string label_;
  int64_t seq_;
  int device_;
  std::vector<Tensor> tensors_;
  bool blocking_;
  cuda::Event end_;
  Clock::time_point start_ = Clock::now();
};

}  // namespace brisk::dist
