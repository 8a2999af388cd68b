// CheckpointWriter: checkpoints written in the background from a copy, one write in flight,
// the last M kept, errors raised by the next call, stale temporary files removed.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <mutex>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "checkpoint/checkpoint_writer.h"
#include "checkpoint/safetensors.h"
#include "checkpoint/save_pattern.h"
#include "nn/modules/linear.h"
#include "optim/sgd.h"
#include "tensor/error.h"
#include "tests/checkpoint/file_util.h"
#include "tests/checkpoint/temporary_files.h"

using namespace brisk;
using namespace brisk::checkpoint;
using namespace brisk::checkpoint::testing;
using Catch::Matchers::Contains;

namespace {

// The lines a writer logs, from its background thread.
struct LogLines {
  std::mutex mutex;
  std::vector<std::string> lines;
  std::function<void(const std::string&)> sink() {
    return [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mutex);
      lines.push_back(line);
    };
  }
  bool has(const std::string& text) {
    std::lock_guard<std::mutex> lock(mutex);
    for (const std::string& line : lines) {
      if (line.find(text) != std::string::npos) return true;
    }
    return false;
  }
};

struct Training {
  nn::Linear model{nn::Linear(3, 2)};
  optim::SGD optimizer{model->parameters(), optim::SGDOptions(0.1).momentum(0.9)};
  Progress progress;

  // One step: every parameter and momentum buffer changes.
  void step() {
    optimizer.zero_grad();
    model->forward(ones({4, 3})).sum().backward();
    optimizer.step();
    ++progress.step;
    ++progress.batch;
  }
  Checkpoint capture_now() const { return capture(*model, optimizer, progress, 5); }
};

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

}  // namespace

TEST_CASE("CheckpointWriter: writes what the state was at save(), however training goes on; keeps the last M") {
  manual_seed(1);
  const std::string dir = scratch_dir("writer_keep");
  const std::string pattern = dir + "/ckpt-{step}.safetensors";
  LogLines log;
  CheckpointWriter writer(pattern, CheckpointWriterOptions().keep_last(2).log(log.sink()));
  Training run;
  std::vector<std::vector<float>> weights;  // the values at save()
  std::vector<std::string> paths;
  run.step();
  for (int i = 0; i < 5; ++i) {
    weights.push_back(run.model->weight.to_vector<float>());
    paths.push_back(writer.save(run.capture_now()));  // the live tensors
    REQUIRE(paths.back() == checkpoint_path(pattern, run.progress));
    if (i > 0) REQUIRE(exists(paths[i - 1]));  // one write in flight: save() waited for the last one
    run.step();                                // changes them while the write may still go on
  }
  writer.wait();
  REQUIRE(list_checkpoints(pattern) == std::vector<std::string>{paths[3], paths[4]});
  for (int i : {3, 4}) {
    REQUIRE(load_safetensors(paths[i]).checksums_verified);
    Checkpoint loaded = load_checkpoint(paths[i]);
    REQUIRE(loaded.progress.step == i + 1);
    REQUIRE(loaded.model["weight"].to_vector<float>() == weights[i]);
    REQUIRE(weights[i] != weights[i - 1]);
  }
  REQUIRE(log.has("saved " + paths[0]));
  REQUIRE(log.has("removed " + paths[2] + ", an older checkpoint than the last 2"));
}

TEST_CASE("CheckpointWriter: a failed write raises its error from the next save() or wait()") {
  manual_seed(2);
  Training run;
  run.step();
  {
    CheckpointWriter writer("/nonexistent-dir/ckpt-{step}.safetensors");
    writer.save(run.capture_now());  // returns: the write fails on the background thread
    REQUIRE_THROWS_WITH(writer.wait(), Contains("/nonexistent-dir/ckpt-00000001.safetensors") &&
                                           Contains("cannot create the temporary file"));
    REQUIRE_NOTHROW(writer.wait());  // raised once
    writer.save(run.capture_now());
    REQUIRE_THROWS_WITH(writer.save(run.capture_now()), Contains("cannot create the temporary file"));
    REQUIRE_NOTHROW(writer.wait());  // the save that raised started no write
  }
  LogLines log;
  {
    CheckpointWriter writer("/nonexistent-dir/ckpt.safetensors", CheckpointWriterOptions().log(log.sink()));
    writer.save(run.capture_now());
  }  // the destructor cannot raise: it logs
  REQUIRE(log.has("checkpoint write failed: writing '/nonexistent-dir/ckpt.safetensors'"));
}

TEST_CASE("CheckpointWriter: removes the pattern's stale temporary files before writing, and says so") {
  manual_seed(3);
  const std::string dir = scratch_dir("writer_stale");
  const std::string stale = temporary_path(dir, "ckpt-00000007.safetensors", host_name(), ::getpid(), 12345);
  write_bytes(stale, {1, 2, 3});
  LogLines log;
  CheckpointWriter writer(dir + "/ckpt-{step}.safetensors", CheckpointWriterOptions().log(log.sink()));
  Training run;
  run.step();
  writer.save(run.capture_now());
  writer.wait();
  REQUIRE_FALSE(exists(stale));
  REQUIRE(log.has("removed " + stale + ", a temporary file that a killed checkpoint write left behind"));
  REQUIRE(list_dir(dir) == std::vector<std::string>{"ckpt-00000001.safetensors"});
}

TEST_CASE("CheckpointWriter: options that cannot work are errors") {
  REQUIRE_THROWS_WITH(CheckpointWriter("a/ckpt.safetensors", CheckpointWriterOptions().keep_last(2)),
                      Contains("keep_last 2 needs a pattern that names several files"));
  REQUIRE_THROWS_WITH(CheckpointWriter("a/ckpt-{step}", CheckpointWriterOptions().keep_last(-1)),
                      Contains("keep_last must be 0 (all) or more, got -1"));
  REQUIRE_THROWS_WITH(CheckpointWriter("a/ckpt-{stepp}"), Contains("unknown placeholder {stepp}"));
}

TEST_CASE("CheckpointWriter: a model on another device (the simulated one) is copied to the host and written") {
  manual_seed(4);
  const std::string dir = scratch_dir("writer_sim");
  Training run;
  run.step();
  const std::vector<float> weight = run.model->weight.to_vector<float>();
  run.model->to(sim_device(0));
  REQUIRE(run.model->weight.device() == sim_device(0));
  CheckpointWriter writer(dir + "/ckpt-{step}.safetensors");
  const std::string path = writer.save(capture(*run.model, run.optimizer, run.progress, 5));
  writer.wait();
  Checkpoint loaded = load_checkpoint(path);
  REQUIRE(loaded.model["weight"].is_cpu());
  REQUIRE(loaded.model["weight"].to_vector<float>() == weight);
}
