#include "tensorboard/summary_writer.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "tensor/error.h"
#include "tests/scratch_files.h"
#include "tests/tensorboard/event_file.h"

using brisk::tensorboard::Event;
using brisk::tensorboard::SummaryWriter;
using brisk::tensorboard::testing::event_files;
using brisk::tensorboard::testing::read_events;
using brisk::tensorboard::testing::read_scalars;
using brisk::tensorboard::testing::Scalars;

namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

TEST_CASE("SummaryWriter: an event file named as TensorBoard's, starting with the file version") {
  const std::string dir = brisk::testing::scratch_dir("summary_writer_version") + "/runs/a";  // parents created
  const double before = now_seconds();
  SummaryWriter writer(dir);
  REQUIRE(event_files(dir) == std::vector<std::string>{writer.path()});
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  const std::string name = writer.path().substr(dir.size() + 1);
  REQUIRE(name.rfind("events.out.tfevents.", 0) == 0);
  REQUIRE(name.find(std::string(".") + host + "." + std::to_string(getpid()) + ".") != std::string::npos);
  // The version event is flushed at once: a TensorBoard started now sees the run.
  const std::vector<Event> events = read_events(writer.path());
  REQUIRE(events.size() == 1);
  REQUIRE(events[0].file_version() == "brain.Event:2");
  REQUIRE(events[0].wall_time() >= before - 1);
  REQUIRE(events[0].wall_time() <= now_seconds() + 1);
}

TEST_CASE("SummaryWriter: scalars come back with their tags, steps and values, record by record") {
  const std::string dir = brisk::testing::scratch_dir("summary_writer_scalars");
  SummaryWriter writer(dir);
  for (int64_t step = 0; step < 3; ++step) {
    writer.add_scalar("train/loss", 2.5 - step, step);
    writer.add_scalar("train/lr", 0.1 * (step + 1), step);
  }
  writer.add_scalar("epoch/test_accuracy", 0.875, 1);
  writer.add_scalar("train/loss", 1e-30, 1LL << 40);  // a step past 32 bits; a tiny float
  writer.flush();
  Scalars scalars = read_scalars(writer.path());
  REQUIRE(scalars.size() == 3);
  REQUIRE(scalars["train/loss"] ==
          std::vector<std::pair<int64_t, float>>{{0, 2.5f}, {1, 1.5f}, {2, 0.5f}, {1LL << 40, 1e-30f}});
  REQUIRE(scalars["train/lr"] ==
          std::vector<std::pair<int64_t, float>>{{0, 0.1f}, {1, 0.2f}, {2, static_cast<float>(0.1 * 3)}});
  REQUIRE(scalars["epoch/test_accuracy"] == std::vector<std::pair<int64_t, float>>{{1, 0.875f}});
  // Every event carries its time, in order.
  const std::vector<Event> events = read_events(writer.path());
  REQUIRE(events.size() == 9);
  for (size_t i = 1; i < events.size(); ++i) REQUIRE(events[i].wall_time() >= events[i - 1].wall_time());
}

TEST_CASE("SummaryWriter: the destructor flushes; two writers in one directory write two files") {
  const std::string dir = brisk::testing::scratch_dir("summary_writer_two");
  std::string first, second;
  {
    SummaryWriter a(dir), b(dir);
    a.add_scalar("x", 1, 1);
    b.add_scalar("x", 2, 1);
    first = a.path(), second = b.path();
  }
  REQUIRE(first != second);
  REQUIRE(event_files(dir).size() == 2);
  REQUIRE(read_scalars(first)["x"] == std::vector<std::pair<int64_t, float>>{{1, 1.0f}});
  REQUIRE(read_scalars(second)["x"] == std::vector<std::pair<int64_t, float>>{{1, 2.0f}});
}

TEST_CASE("SummaryWriter: a log directory that cannot be created is named") {
  const std::string dir = brisk::testing::scratch_dir("summary_writer_bad");
  brisk::testing::write_bytes(dir + "/file", {'x'});
  REQUIRE_THROWS_WITH(
      SummaryWriter(dir + "/file/runs"),
      Catch::Contains("TensorBoard log directory '" + dir + "/file/runs'") && Catch::Contains("cannot create it"));
}
