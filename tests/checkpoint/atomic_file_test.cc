// AtomicFile: the target is replaced only by a committed, complete file, and no temporary
// file is left behind either way.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "checkpoint/atomic_file.h"
#include "tensor/error.h"
#include "tests/checkpoint/file_util.h"

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
