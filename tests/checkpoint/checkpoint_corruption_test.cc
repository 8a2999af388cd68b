// Checkpoints that cannot silently lie: every flipped bit, every truncation and random
// overwrites of a checkpoint are refused by load_checkpoint with brisk::Error; none loads.
#include <catch2/catch.hpp>
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "checkpoint/checkpoint.h"
#include "checkpoint/safetensors.h"
#include "nn/functional.h"
#include "nn/modules/activation.h"
#include "nn/modules/linear.h"
#include "nn/sequential.h"
#include "optim/schedulers/lr_scheduler.h"
#include "optim/sgd.h"
#include "tensor/error.h"
#include "tests/checkpoint/file_util.h"

using namespace brisk;
using namespace brisk::checkpoint;
using namespace brisk::checkpoint::testing;
using Catch::Matchers::Contains;

namespace {

// A small checkpoint with every kind of entry: model and optimizer tensors, a scheduler,
// the program's own metadata. Returns its bytes.
std::vector<uint8_t> write_checkpoint(const std::string& path) {
  manual_seed(7);
  nn::Sequential model(nn::Linear(4, 3), nn::ReLU(), nn::Linear(3, 2));
  optim::SGD optimizer(model->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  optim::StepLR scheduler(optimizer, 2);
  optimizer.zero_grad();
  nn::functional::cross_entropy(model->forward(randn({5, 4})), tensor<int64_t>({0, 1, 1, 0, 1}, {5})).backward();
  optimizer.step();
  scheduler.step();
  Progress progress;
  progress.batch = 1;
  progress.step = 1;
  Checkpoint ckpt = capture(*model, optimizer, progress, 42, &scheduler);
  ckpt.metadata = {{"model", "toy"}, {"batch_size", "5"}};
  save_checkpoint(path, ckpt);
  return read_bytes(path);
}

// The first byte of the data: 8 + the header's length.
size_t data_start(const std::vector<uint8_t>& bytes) {
  uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = (length << 8) | bytes[i];
  return 8 + length;
}

// Overwrites the byte at `offset` of the file in place (rewriting the whole file, which
// truncates it first, makes tens of thousands of loads wait on the disk).
void write_byte(const std::string& path, size_t offset, uint8_t value) {
  int fd = ::open(path.c_str(), O_WRONLY);
  REQUIRE(fd >= 0);
  REQUIRE(::pwrite(fd, &value, 1, static_cast<off_t>(offset)) == 1);
  ::close(fd);
}

// Whether load_checkpoint refuses the file with brisk::Error; any other outcome (a load, another
// exception) is recorded in `accepted` with `what`.
void expect_refused(const std::string& path, const std::string& what, std::vector<std::string>& accepted) {
  try {
    load_checkpoint(path);
    accepted.push_back(what + ": loaded");
  } catch (const Error&) {
  } catch (const std::exception& e) {
    accepted.push_back(what + ": not a brisk::Error: " + e.what());
  }
}

}  // namespace

TEST_CASE("checkpoint corruption: every single flipped bit, in the length, header or data, is refused") {
  const std::string path = scratch_dir("corrupt_flips") + "/c.safetensors";
  const std::vector<uint8_t> good = write_checkpoint(path);
  REQUIRE(load_safetensors(path).checksums_verified);
  const size_t start = data_start(good);
  INFO("file of " << good.size() << " bytes, data from byte " << start);
  std::vector<std::string> accepted;
  for (size_t at = 0; at < good.size(); ++at) {
    for (int bit = 0; bit < 8; ++bit) {
      write_byte(path, at, good[at] ^ static_cast<uint8_t>(1u << bit));
      expect_refused(path, "byte " + std::to_string(at) + " bit " + std::to_string(bit), accepted);
    }
    write_byte(path, at, good[at]);
  }
  CAPTURE(accepted);
  REQUIRE(accepted.empty());
}

TEST_CASE("checkpoint corruption: a flipped bit in a tensor names the file and the tensor") {
  const std::string path = scratch_dir("corrupt_named") + "/c.safetensors";
  const std::vector<uint8_t> good = write_checkpoint(path);
  Safetensors file = load_safetensors(path);
  std::vector<uint8_t> bytes = good;
  // The data holds the tensors in the order load_safetensors hands them out.
  size_t at = data_start(good);
  for (const auto& [name, t] : file.tensors) {
    const size_t middle = at + t.nbytes() / 2;
    bytes[middle] ^= 0x01;
    write_bytes(path, bytes);
    REQUIRE_THROWS_WITH(load_checkpoint(path), Contains(path) && Contains("tensor \"" + name + "\"") &&
                                                   Contains("does not match its checksum"));
    bytes[middle] = good[middle];
    at += t.nbytes();
  }
  REQUIRE(at == good.size());
}

TEST_CASE("checkpoint corruption: every truncation is refused; in the data, naming the tensor and the byte") {
  const std::string path = scratch_dir("corrupt_truncated") + "/c.safetensors";
  const std::vector<uint8_t> good = write_checkpoint(path);
  const size_t start = data_start(good);
  std::vector<std::string> accepted;
  for (size_t size = good.size(); size-- > 0;) {
    REQUIRE(::truncate(path.c_str(), static_cast<off_t>(size)) == 0);
    expect_refused(path, "truncated to " + std::to_string(size), accepted);
  }
  CAPTURE(accepted);
  REQUIRE(accepted.empty());
  // Cut in the middle of the last tensor (a momentum buffer of the last layer's bias).
  write_bytes(path, std::vector<uint8_t>(good.begin(), good.end() - 3));
  REQUIRE_THROWS_WITH(load_checkpoint(path), Contains(path) &&
                                                 Contains("tensor \"optimizer/state.3.momentum_buffer\"") &&
                                                 Contains("ends at file byte " + std::to_string(good.size())) &&
                                                 Contains("the file ends at byte " + std::to_string(good.size() - 3)));
  write_bytes(path, std::vector<uint8_t>(good.begin(), good.begin() + start - 1));
  REQUIRE_THROWS_WITH(load_checkpoint(path),
                      Contains(path) && Contains("the header ends at byte " + std::to_string(start)));
}

TEST_CASE("checkpoint corruption: random overwrites of 1 to 16 bytes anywhere are refused") {
  const std::string path = scratch_dir("corrupt_random") + "/c.safetensors";
  const std::vector<uint8_t> good = write_checkpoint(path);
  std::mt19937_64 rng(2024);
  std::vector<std::string> accepted;
  for (int trial = 0; trial < 3000; ++trial) {
    const size_t length = 1 + rng() % 16;
    const size_t at = rng() % (good.size() - length + 1);
    bool changed = false;
    for (size_t i = at; i < at + length; ++i) {
      const uint8_t value = static_cast<uint8_t>(rng());
      changed = changed || value != good[i];
      write_byte(path, i, value);
    }
    if (changed) expect_refused(path, std::to_string(length) + " bytes at " + std::to_string(at), accepted);
    for (size_t i = at; i < at + length; ++i) write_byte(path, i, good[i]);
  }
  CAPTURE(accepted);
  REQUIRE(accepted.empty());
}

TEST_CASE("checkpoint corruption: only layout version 2 loads; an older or newer one is refused by name") {
  const std::string dir = scratch_dir("corrupt_versions");
  write_checkpoint(dir + "/c.safetensors");
  Safetensors file = load_safetensors(dir + "/c.safetensors");
  REQUIRE(file.metadata.at("brisk.checkpoint") == "2");

  // As Brisk wrote checkpoints before checksums, before any release: refused, naming the file and the version.
  file.metadata["brisk.checkpoint"] = "1";
  save_safetensors(dir + "/v1.safetensors", file.tensors, file.metadata);
  REQUIRE_THROWS_WITH(load_checkpoint(dir + "/v1.safetensors"),
                      Contains("checkpoint '" + dir + "/v1.safetensors'") &&
                          Contains("layout version \"1\" is not supported, this build reads only version 2"));

  file.metadata["brisk.checkpoint"] = "2";
  save_safetensors(dir + "/v2.safetensors", file.tensors, file.metadata);
  REQUIRE_THROWS_WITH(load_checkpoint(dir + "/v2.safetensors"),
                      Contains("no \"brisk.checksums\"") && Contains("version 2 have"));
  file.metadata["brisk.checkpoint"] = "3";
  save_safetensors(dir + "/v3.safetensors", file.tensors, file.metadata, Checksums::kWrite);
  REQUIRE_THROWS_WITH(load_checkpoint(dir + "/v3.safetensors"), Contains("layout version \"3\" is not supported"));
}
