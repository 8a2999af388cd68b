#include "tests/tools/train/fault_injection.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <thread>

#include "tensor/error.h"

namespace brisk::train {
namespace {

// Checkpoint writes stop after this many bytes at=checkpoint: past the safetensors header of
// every model, short of its data.
constexpr rlim_t kCheckpointBytesWritten = 4096;

int64_t parse_count(const std::string& key, const std::string& value) {
  int64_t n = -1;
  auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), n);
  BRISK_CHECK(error == std::errc() && end == value.data() + value.size() && n >= 0,
              "BRISK_TRAIN_FAULT: {}={} is not an integer >= 0", key, value);
  return n;
}

// Said on stderr, which every rank's launcher output keeps (the log of ranks but 0 is quiet).
void say(const std::string& line) {
  std::fprintf(stderr, "fault injection: %s\n", line.c_str());
  std::fflush(stderr);
}

[[noreturn]] void die(const std::string& what) {
  say(what);
  raise(SIGKILL);
  std::abort();  // not reached
}

}  // namespace

FaultInjector::FaultInjector(const std::string& spec, int rank, int round) {
  if (spec.empty()) return;
  std::map<std::string, std::string> entries;
  size_t begin = 0;
  while (begin <= spec.size()) {
    size_t end = std::min(spec.find(',', begin), spec.size());
    std::string entry = spec.substr(begin, end - begin);
    size_t eq = entry.find('=');
    BRISK_CHECK(eq != std::string::npos, "BRISK_TRAIN_FAULT: '{}' is not key=value (in '{}')", entry, spec);
    std::string key = entry.substr(0, eq);
    BRISK_CHECK(key == "rank" || key == "step" || key == "at" || key == "round" || key == "signal",
                "BRISK_TRAIN_FAULT: unknown key '{}' (rank, step, at, round, signal) in '{}'", key, spec);
    entries[key] = entry.substr(eq + 1);
    begin = end + 1;
  }
  rank_ = entries.count("rank") ? static_cast<int>(parse_count("rank", entries["rank"])) : 0;
  BRISK_CHECK(entries.count("step"), "BRISK_TRAIN_FAULT: step=S is missing in '{}'", spec);
  step_ = parse_count("step", entries["step"]);
  const std::string at = entries.count("at") ? entries["at"] : "step";
  if (at == "step") {
    point_ = Point::kStep;
  } else if (at == "backward") {
    point_ = Point::kBackward;
  } else if (at == "checkpoint") {
    point_ = Point::kCheckpoint;
  } else if (at == "preempt_self") {
    point_ = Point::kPreemptSelf;
  } else if (at == "preempt_starter") {
    point_ = Point::kPreemptStarter;
  } else if (at == "preempt_job") {
    point_ = Point::kPreemptJob;
  } else {
    BRISK_FAIL(
        "BRISK_TRAIN_FAULT: at={} is not step, backward, checkpoint, preempt_self, preempt_starter or preempt_job", at);
  }
  const std::string signal = entries.count("signal") ? entries["signal"] : "TERM";
  BRISK_CHECK(signal == "TERM" || signal == "USR1", "BRISK_TRAIN_FAULT: signal={} is not TERM or USR1", signal);
  signal_ = signal == "TERM" ? SIGTERM : SIGUSR1;
  BRISK_CHECK(point_ != Point::kCheckpoint || rank_ == 0,
              "BRISK_TRAIN_FAULT: at=checkpoint needs rank=0 (only rank 0 writes checkpoints), got rank={}", rank_);
  const int64_t fault_round = entries.count("round") ? parse_count("round", entries["round"]) : 0;
  armed_ = rank == rank_ && round == fault_round;
}

FaultInjector FaultInjector::from_env(int rank) {
  const char* spec = std::getenv("BRISK_TRAIN_FAULT");
  const char* round = std::getenv("BRISK_RESTART_ROUND");
  return FaultInjector(spec ? spec : "", rank, round ? static_cast<int>(parse_count("round", round)) : 0);
}

void FaultInjector::start(const checkpoint::Progress& progress, nn::Module& model) {
  if (!armed_) return;
  *steps_done_ = progress.step;
  if (!is_preemption()) say(describe());
  if (point_ != Point::kBackward) return;
  model.parameters().front().register_hook([steps_done = steps_done_, step = step_, what = describe()](const Tensor&) {
    if (*steps_done == step) die(what);
    return Tensor();
  });
}

void FaultInjector::after_step(const checkpoint::Progress& progress) {
  if (!armed_) return;
  *steps_done_ = progress.step;
  if (point_ == Point::kStep && progress.step == step_) die(describe());
  if (is_preemption() && progress.step == step_) {
    say(describe());
    if (point_ == Point::kPreemptSelf) {
      raise(signal_);
    } else if (point_ == Point::kPreemptStarter) {
      kill(getppid(), signal_);
    } else {
      const char* job = std::getenv("SLURM_JOB_ID");
      BRISK_CHECK(job != nullptr, "BRISK_TRAIN_FAULT: at=preempt_job needs a Slurm job (SLURM_JOB_ID)");
      const std::string command = fmt::format("scancel --signal={} {}", sigabbrev_np(signal_), job);
      BRISK_CHECK(std::system(command.c_str()) == 0, "BRISK_TRAIN_FAULT: '{}' failed", command);
    }
    // A signal sent to the starter or the job comes back to this process a little later: wait
    // for it here, so that this rank sees it after step S, as one raised in it would be.
    if (point_ != Point::kPreemptSelf) std::this_thread::sleep_for(std::chrono::seconds(2));
  }
}

void FaultInjector::before_checkpoint(const checkpoint::Progress& progress) {
  if (!armed_ || point_ != Point::kCheckpoint || progress.step < step_) return;
  say(fmt::format("{}: its writes stop at {} bytes", describe(), kCheckpointBytesWritten));
  rlimit none{0, 0};
  setrlimit(RLIMIT_CORE, &none);  // SIGXFSZ would dump core
  rlimit size{};
  getrlimit(RLIMIT_FSIZE, &size);
  size.rlim_cur = std::min(size.rlim_max, kCheckpointBytesWritten);
  setrlimit(RLIMIT_FSIZE, &size);
}

std::string FaultInjector::describe() const {
  switch (point_) {
    case Point::kStep: return fmt::format("rank {} dies after step {}", rank_, step_);
    case Point::kBackward: return fmt::format("rank {} dies in the backward of step {}", rank_, step_ + 1);
    case Point::kCheckpoint: break;
    case Point::kPreemptSelf:
      return fmt::format("rank {} gets SIG{} after step {}", rank_, sigabbrev_np(signal_), step_);
    case Point::kPreemptStarter:
      return fmt::format("rank {} sends SIG{} to its starter (pid {}) after step {}", rank_, sigabbrev_np(signal_),
                         getppid(), step_);
    case Point::kPreemptJob:
      return fmt::format("rank {} has Slurm send SIG{} to the job after step {}", rank_, sigabbrev_np(signal_), step_);
  }
  return fmt::format("rank {} dies writing the first checkpoint of a step >= {}", rank_, step_);
}

}  // namespace brisk::train
