#include "tests/tools/launch/run_launcher.h"

#include <catch2/catch.hpp>

namespace brisk::testing {

RunResult run_launcher(const std::vector<std::string>& args, const RunOptions& options) {
  std::vector<std::string> argv{launcher_path()};
  argv.insert(argv.end(), args.begin(), args.end());
  RunResult result = run_process(argv, options);
  INFO(output_of(result));
  REQUIRE_FALSE(result.timed_out);
  return result;
}

}  // namespace brisk::testing
