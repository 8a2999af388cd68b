#pragma once
// Preemption: how a training run stops when its cluster takes the machine back. Slurm sends
// SIGTERM (or, with `--signal=USR1@90`, SIGUSR1 before the time limit), Kubernetes SIGTERM
// before SIGKILL, and the launcher and mpirun pass them on to every process. On SIGTERM or
// SIGUSR1 each rank finishes the optimizer step in progress and the ranks agree, through the
// job's store, on the one step after which all of them stop; the program then writes its
// checkpoint there and exits with kRequeueExitStatus, which asks the scheduler to start the job
// again, and `--resume auto` continues from that checkpoint exactly (docs/cluster.md,
// "Preemption and requeue").
//
//   Preemption preemption(run.enabled ? dist::default_store() : nullptr);  // installs the handlers
//   ... after each optimizer step s:
//   if (preemption.stop_after(s)) { save the checkpoint of step s; exit kRequeueExitStatus; }
//
// The agreement: the first rank to see a signal at the end of its step s proposes s + 1 (no
// rank can have finished step s + 1 yet: that step's all-reduce needs this rank), and every
// rank reads the store after each step, so a rank that got no signal stops at the same step.
// That read, one store round trip a step, is the cost while nothing happens.
#include <atomic>
#include <cstdint>
#include <memory>

#include "distributed/store/store.h"

namespace brisk::train {

// "Try again later" (sysexits.h's EX_TEMPFAIL): the job was preempted and saved; start it
// again with --resume auto. The launcher exits with it too when its workers all did.
constexpr int kRequeueExitStatus = 75;

class Preemption {
 public:
  // `store`: the job's, shared by every rank; null for a run of one process. Installs the
  // SIGTERM and SIGUSR1 handlers (the first signal counts; a scheduler that wants the process
  // gone after that sends SIGKILL); the destructor restores the previous ones.
  explicit Preemption(std::shared_ptr<dist::Store> store);
  ~Preemption();
  Preemption(const Preemption&) = delete;
  Preemption& operator=(const Preemption&) = delete;

  // After optimizer step `step` (Progress::step): whether the run stops here, on every rank
  // alike. Once true, true for later steps too.
  bool stop_after(int64_t step);
  // The signal that asked for the stop (this rank's, or a peer's as the store records it);
  // 0 before one came.
  int signal() const { return signal_; }

 private:
  std::shared_ptr<dist::Store> store_;
  bool proposed_ = false;
  int64_t stop_step_ = -1;  // agreed, once known
  int signal_ = 0;
};

}  // namespace brisk::train
