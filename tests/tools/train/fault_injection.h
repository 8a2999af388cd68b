#pragma once
// BRISK_TRAIN_FAULT: a fault injector for tests, read by the tests' build of the training
// program (train_with_faults: the program with this injector as its RunHooks, run_training.h).
// It makes one rank die (or be preempted) at a precise point of training, so that a test can check that a job restarted by
// `launch --max-restarts` ends exactly as an uninterrupted one (tests/tools/train/
// restart_test.cc, docs/launch.md "Restarts"). Unset, it does nothing.
//
//   BRISK_TRAIN_FAULT="rank=1,step=7,at=backward" launch --max-restarts 2 ... train_with_faults ... --resume auto
//
//   rank=R    the rank that dies (default 0)
//   step=S    after S optimizer steps of the run (counted from its start, as Progress::step)
//   at=P      step        SIGKILL between step S and step S + 1 (mid-epoch unless S ends one)
//             backward    SIGKILL in the backward of step S + 1, as the model's first parameter's
//                         gradient is computed (the last of the backward pass)
//             checkpoint  in the first checkpoint write of a step >= S, part-way: the file size
//                         limit (RLIMIT_FSIZE) is set to 4096 bytes, so the write that passes it
//                         ends the process with SIGXFSZ, leaving a partial temporary file
//                         (only rank 0 writes checkpoints: needs rank=0)
//             preempt_self     raises `signal` in this rank after step S, as a cluster preempting
//                              one task would (train/preemption.h)
//             preempt_starter  sends `signal` to this rank's parent (the launcher, mpirun) after
//                              step S, as a cluster preempting the job does; it passes it on
//                              (the rank then waits 2 s for it to come back, as for preempt_job)
//             preempt_job      runs `scancel --signal=<signal> $SLURM_JOB_ID` after step S: Slurm
//                              signals every task of the job, as when it preempts it
//   signal=G  TERM (default) or USR1, for the preempt points
//   round=N   only in restart round N (BRISK_RESTART_ROUND, set by the launcher; default 0), so
//             that the restarted job runs through
#include <cstdint>
#include <memory>
#include <string>

#include "checkpoint/checkpoint.h"
#include "nn/module.h"
#include "tools/train/run_training.h"

namespace brisk::train {

class FaultInjector : public RunHooks {
 public:
  // The fault `spec` describes for rank `rank` in restart round `round` (nothing for an empty
  // spec). Raises brisk::Error naming BRISK_TRAIN_FAULT and the entry when `spec` is malformed.
  FaultInjector(const std::string& spec, int rank, int round);
  // From the environment: BRISK_TRAIN_FAULT and BRISK_RESTART_ROUND (0 when unset).
  static FaultInjector from_env(int rank);

  // Whether this process is to die at all; when not, every call below does nothing.
  bool armed() const { return armed_; }
  // Where training starts (a resumed run's progress); hooks the model's first parameter for
  // at=backward.
  void start(const checkpoint::Progress& progress, nn::Module& model) override;
  void after_step(const checkpoint::Progress& progress) override;
  void before_checkpoint(const checkpoint::Progress& progress) override;
  // "rank 1 dies in the backward of step 8", for the log.
  std::string describe() const;

 private:
  enum class Point { kStep, kBackward, kCheckpoint, kPreemptSelf, kPreemptStarter, kPreemptJob };
  bool is_preemption() const {
    return point_ == Point::kPreemptSelf || point_ == Point::kPreemptStarter || point_ == Point::kPreemptJob;
  }

  bool armed_ = false;
  int rank_ = 0;
  int64_t step_ = 0;
  Point point_ = Point::kStep;
  int signal_ = 0;  // the preempt points'

  // Optimizer steps done, read by the backward hook.
  std::shared_ptr<int64_t> steps_done_ = std::make_shared<int64_t>(0);
};

}  // namespace brisk::train
