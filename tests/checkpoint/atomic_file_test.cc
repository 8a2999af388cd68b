// AtomicFile: the target is replaced only by a committed, complete file, and no temporary
// file is left behind either way.
#include <catch2/catch.hpp>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "checkpoint/atomic_file.h"
#include "tensor/error.h"
#include "tests/checkpoint/file_util.h"
#include "tests/checkpoint/temporary_files.h"

using namespace brisk::checkpoint;
using namespace brisk::checkpoint::testing;
using Catch::Matchers::Contains;

namespace {

void write_text(AtomicFile& file, const std::string& text) { file.write(text.data(), text.size()); }

std::string read_text(const std::string& path) {
  std::vector<uint8_t> bytes = read_bytes(path);
  return std::string(bytes.begin(), bytes.end());
}

}  // namespace

TEST_CASE("AtomicFile: commit creates or replaces the target, through a temporary file in its directory") {
  std::string dir = scratch_dir("atomic_commit");
  std::string path = dir + "/state.bin";
  {
    AtomicFile file(path);
    REQUIRE(file.temporary_path().rfind(dir + "/.state.bin.tmp-", 0) == 0);
    write_text(file, "first");
    REQUIRE(list_dir(dir) == std::vector<std::string>{file.temporary_path().substr(dir.size() + 1)});
    file.commit();
    REQUIRE(file.size() == 5);
  }
  REQUIRE(read_text(path) == "first");
  {
    AtomicFile file(path);
    write_text(file, "second, longer");
    REQUIRE(read_text(path) == "first");  // readers see the old file until the commit
    file.commit();
  }
  REQUIRE(read_text(path) == "second, longer");
  REQUIRE(list_dir(dir) == std::vector<std::string>{"state.bin"});
}

TEST_CASE("AtomicFile: without commit (e.g. an exception while writing) the target stays as it was") {
  std::string dir = scratch_dir("atomic_abandon");
  std::string path = dir + "/state.bin";
  {
    AtomicFile file(path);
    write_text(file, "kept");
    file.commit();
  }
  try {
    AtomicFile file(path);
    write_text(file, "half of a ");
    throw brisk::Error("disk on fire");
  } catch (const brisk::Error&) {
  }
  REQUIRE(read_text(path) == "kept");
  REQUIRE(list_dir(dir) == std::vector<std::string>{"state.bin"});
}

TEST_CASE("AtomicFile: errors name the target and the temporary file") {
  REQUIRE_THROWS_WITH(AtomicFile("/nonexistent-dir/x.bin"),
                      Contains("writing '/nonexistent-dir/x.bin'") && Contains("/nonexistent-dir/.x.bin.tmp-"));
  AtomicFile file(scratch_dir("atomic_errors") + "/x.bin");
  file.commit();
  REQUIRE_THROWS_WITH(file.commit(), Contains("commit twice"));
  REQUIRE_THROWS_WITH(file.write("x", 1), Contains("write after commit"));
}

TEST_CASE("AtomicFile: temporary names say the target, the machine, the process and a counter") {
  std::optional<TemporaryFileName> name = parse_temporary_name(".ckpt-3.safetensors.tmp-node-1.lan-4242-7");
  REQUIRE(name.has_value());
  REQUIRE(name->target == "ckpt-3.safetensors");
  REQUIRE(name->host == "node-1.lan");
  REQUIRE(name->pid == 4242);
  REQUIRE(name->counter == 7);
  for (const char* other :
       {"ckpt-3.safetensors", ".ckpt.tmp-host-12", ".ckpt.tmp-host-x-1", ".ckpt.tmp--1-2", ".tmp-h-1-2"}) {
    INFO(other);
    REQUIRE_FALSE(parse_temporary_name(other).has_value());
  }
  std::string dir = scratch_dir("atomic_names");
  AtomicFile file(dir + "/state.bin");
  name = parse_temporary_name(file.temporary_path().substr(dir.size() + 1));
  REQUIRE(name.has_value());
  REQUIRE(name->target == "state.bin");
  REQUIRE(name->host == host_name());
  REQUIRE(name->pid == ::getpid());
}

TEST_CASE("remove_stale_temporaries: removes what dead writers of the path left, keeps live writers' and others'") {
  std::string dir = scratch_dir("atomic_stale");
  const std::string host = host_name();
  const pid_t gone = exited_pid();
  auto temporary = [&](const std::string& target, const std::string& on, int64_t pid, int n) {
    std::string path = temporary_path(dir, target, on, pid, n);
    write_bytes(path, {1, 2});
    return path;
  };
  const std::string dead_writer = temporary("state.bin", host, gone, 0);
  const std::string this_process_earlier = temporary("state.bin", host, ::getpid(), 99);  // e.g. an earlier run's pid
  const std::string other_machine = temporary("state.bin", "elsewhere", gone, 1);
  const std::string live_parent = temporary("state.bin", host, ::getppid(), 2);  // the parent started before it
  const std::string other_target = temporary("other.bin", host, gone, 3);
  AtomicFile live(dir + "/state.bin");  // a write in progress in this process
  write_bytes(dir + "/state.bin", {7});

  std::vector<std::string> removed = remove_stale_temporaries(dir + "/state.bin");
  std::sort(removed.begin(), removed.end());
  std::vector<std::string> want = {dead_writer, this_process_earlier};
  std::sort(want.begin(), want.end());
  REQUIRE(removed == want);
  std::vector<std::string> left = list_dir(dir);
  std::sort(left.begin(), left.end());
  std::vector<std::string> want_left;
  for (const std::string& path : {other_machine, live_parent, other_target, live.temporary_path()}) {
    want_left.push_back(path.substr(dir.size() + 1));
  }
  want_left.push_back("state.bin");
  std::sort(want_left.begin(), want_left.end());
  REQUIRE(left == want_left);

  // A process ID used again, by a process started after the file was last written.
  struct timeval long_ago[2] = {{1000000000, 0}, {1000000000, 0}};  // 2001
  REQUIRE(::utimes(live_parent.c_str(), long_ago) == 0);
  REQUIRE(remove_stale_temporaries(dir + "/state.bin") == std::vector<std::string>{live_parent});
  REQUIRE(remove_stale_temporaries("/nonexistent-dir/state.bin").empty());
}
