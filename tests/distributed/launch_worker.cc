// A worker for the launcher-driven fault and multi-node tests (fault_test.cc,
// multinode_test.cc): joins the job through init_process_group("gloo") with the launcher's
// environment and runs one scenario.
//
//   allreduce
//       all_reduce(SUM) of [rank + 1] * 4; prints "rank R of W: sum S".
//   train <dir> <steps> [--kill RANK STEP] [--stop RANK STEP] [--spin RANK STEP] [--exit RANK STEP]
//         [--resume] [--ignore-sigterm]
//       A deterministic data-parallel "training": each step all-reduces (AVG) a gradient that
//       depends on the parameters, the rank and the step, and takes an SGD step. Rank 0 saves
//       a checkpoint (next step and parameters, exactly, as hex floats) to <dir>/checkpoint
//       every 5 steps; --resume starts from it. With --kill, rank RANK sends itself SIGKILL
//       at the start of step STEP; with --stop, SIGSTOP (it hangs until the launcher's SIGKILL);
//       with --spin, it loops forever there, outside any collective; with --exit, it exits
//       with status 0 there, without destroying its group (as a rank that ran out of work).
//       All print "... at step STEP (monotonic T ms)", CLOCK_MONOTONIC being one clock for
//       every process of the machine, so a test can time how long the others took to notice.
//       At the end rank 0 prints "final: <parameters>".
//       --ignore-sigterm: survive the launcher's SIGTERM, so that a failure has to be found
//       by the process group itself.
//
// Collectives time out after BRISK_TEST_TIMEOUT_MS (default 5000); BRISK_TEST_STALL_TIMEOUT_MS
// sets ProcessGroupOptions::stall_timeout (default unset). An error is printed with
// the rank, then "failed at monotonic T ms", and the worker exits 1 (rank 0 a second later: it
// hosts the store).
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "distributed/distributed.h"
#include "tensor/error.h"
#include "tensor/native/ops.h"

using namespace brisk;

namespace {

constexpr int64_t kParams = 8;
constexpr int kCheckpointEvery = 5;
constexpr float kLearningRate = 0.5f;

Tensor filled(const std::vector<float>& values) {
  Tensor t = native::empty({static_cast<int64_t>(values.size())}, TensorOptions().dtype(kFloat32));
  std::copy(values.begin(), values.end(), t.data_ptr<float>());
  return t;
}

// CLOCK_MONOTONIC in milliseconds: comparable between the processes of one machine.
int64_t monotonic_ms() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<int64_t>(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

int allreduce() {
  int rank = dist::get_rank();
  Tensor t = filled(std::vector<float>(4, static_cast<float>(rank + 1)));
  dist::all_reduce(t);
  std::printf("rank %d of %d: sum %g\n", rank, dist::get_world_size(), t.data_ptr<float>()[0]);
  return 0;
}

std::string hex(const std::vector<float>& values) {
  std::string out;
  for (float v : values) {
    char buffer[64];
    std::snprintf(buffer, sizeof(buffer), "%s%a", out.empty() ? "" : " ", static_cast<double>(v));
    out += buffer;
  }
  return out;
}

void save_checkpoint(const std::string& dir, int next_step, const std::vector<float>& w) {
  std::string path = dir + "/checkpoint";
  {
    std::ofstream out(path + ".tmp");
    out << next_step << "\n" << hex(w) << "\n";
    BRISK_CHECK(out.good(), "cannot write {}.tmp", path);
  }
  BRISK_CHECK(std::rename((path + ".tmp").c_str(), path.c_str()) == 0, "cannot rename {}.tmp", path);
}

int load_checkpoint(const std::string& dir, std::vector<float>& w) {
  std::ifstream in(dir + "/checkpoint");
  BRISK_CHECK(in.good(), "no checkpoint in {}", dir);
  int next_step = 0;
  in >> next_step;
  for (float& v : w) {
    std::string word;
    in >> word;
    v = std::strtof(word.c_str(), nullptr);
  }
  BRISK_CHECK(!in.fail(), "{}/checkpoint is truncated", dir);
  return next_step;
}

int train(int argc, char** argv) {
  BRISK_CHECK(argc >= 4,
              "usage: train <dir> <steps> [--kill|--stop|--spin|--exit RANK STEP] [--resume] [--ignore-sigterm]");
  std::string dir = argv[2];
  int steps = std::atoi(argv[3]);
  int kill_rank = -1, kill_step = -1, kill_signal = SIGKILL;  // kill_signal 0: spin; -1: exit
  bool resume = false;
  for (int i = 4; i < argc; ++i) {
    std::string arg = argv[i];
    if ((arg == "--kill" || arg == "--stop" || arg == "--spin" || arg == "--exit") && i + 2 < argc) {
      kill_rank = std::atoi(argv[++i]);
      kill_step = std::atoi(argv[++i]);
      kill_signal = arg == "--kill" ? SIGKILL : arg == "--stop" ? SIGSTOP : arg == "--spin" ? 0 : -1;
    } else if (arg == "--resume") {
      resume = true;
    } else if (arg == "--ignore-sigterm") {
      signal(SIGTERM, SIG_IGN);
    } else {
      BRISK_FAIL("train: unknown argument {}", arg);
    }
  }
  int rank = dist::get_rank();
  int world = dist::get_world_size();
  std::vector<float> w(kParams);
  for (int64_t i = 0; i < kParams; ++i) w[i] = 0.1f * static_cast<float>(i + 1);
  int first = resume ? load_checkpoint(dir, w) : 0;
  if (rank == 0) std::printf("starting at step %d of %d on %d ranks\n", first, steps, world);

  for (int step = first; step < steps; ++step) {
    if (rank == kill_rank && step == kill_step) {
      // Let the others enter this step's all_reduce first.
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      const char* what = kill_signal == SIGKILL   ? "killing"
                         : kill_signal == SIGSTOP ? "stopping"
                         : kill_signal == 0       ? "spinning"
                                                  : "exiting";
      std::printf("%s myself at step %d (monotonic %lld ms)\n", what, step, static_cast<long long>(monotonic_ms()));
      std::fflush(stdout);
      if (kill_signal == -1) std::_Exit(0);
      if (kill_signal != 0) raise(kill_signal);
      for (volatile uint64_t spins = 0;; spins = spins + 1) {
      }
    }
    std::vector<float> grad(kParams);
    for (int64_t i = 0; i < kParams; ++i)
      grad[i] = w[i] * 0.01f * static_cast<float>(rank + 1) + 0.001f * static_cast<float>((step + 1) * (i + 1));
    Tensor g = filled(grad);
    dist::all_reduce(g, dist::ReduceOp::AVG);
    const float* avg = g.data_ptr<float>();
    for (int64_t i = 0; i < kParams; ++i) w[i] -= kLearningRate * avg[i];
    if (rank == 0 && (step + 1) % kCheckpointEvery == 0) save_checkpoint(dir, step + 1, w);
  }
  if (rank == 0) std::printf("final: %s\n", hex(w).c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string scenario = argc > 1 ? argv[1] : "";
  const char* rank_env = std::getenv("RANK");
  try {
    dist::ProcessGroupOptions options;
    const char* timeout = std::getenv("BRISK_TEST_TIMEOUT_MS");
    options.timeout = std::chrono::milliseconds(timeout ? std::atoi(timeout) : 5000);
    if (const char* stall = std::getenv("BRISK_TEST_STALL_TIMEOUT_MS"))
      options.stall_timeout = std::chrono::milliseconds(std::atoi(stall));
    dist::init_process_group("gloo", "env://", -1, -1, options);
    int status = 64;
    if (scenario == "allreduce") status = allreduce();
    if (scenario == "train") status = train(argc, argv);
    if (status == 64) std::fprintf(stderr, "launch_worker: unknown scenario '%s'\n", scenario.c_str());
    std::fflush(stdout);
    dist::destroy_process_group();
    return status;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "rank %s failed: %s\nfailed at monotonic %lld ms\n", rank_env ? rank_env : "?", e.what(),
                 static_cast<long long>(monotonic_ms()));
    // Rank 0 hosts the store: it stays up a moment so that the other ranks can still ask it
    // which ranks were missing when they fail too.
    if (rank_env != nullptr && std::string(rank_env) == "0") std::this_thread::sleep_for(std::chrono::seconds(1));
    return 1;
  }
}
