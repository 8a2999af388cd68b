// launch: starts the workers of a data-parallel job on this node, as torchrun. Its command
// line, what each worker gets and what happens when one fails: docs/launch.md.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "distributed/launch/free_port.h"
#include "distributed/launch/launch_options.h"
#include "distributed/launch/store_token.h"
#include "distributed/launch/supervisor.h"
#include "tensor/error.h"

namespace {

using brisk::launch::LaunchOptions;

// CLI11 validators whose messages read at a glance ("--nproc-per-node: expected an integer >= 1,
// got 'two'") instead of CLI11's own ranges (which print the limits of a double, 309 digits
// long). They see the option's text before it is converted, so a word, a fraction or trailing
// characters are refused with the same message.

// An integer from min to max, in decimal with nothing around it; max = INT_MAX reads ">= min".
CLI::Validator integer_in(int min, int max) {
  std::string expected =
      max == INT_MAX ? fmt::format("an integer >= {}", min) : fmt::format("an integer from {} to {}", min, max);
  std::string range = max == INT_MAX ? fmt::format(">={}", min) : fmt::format("{}-{}", min, max);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        long long value = 0;
        const char* end = text.data() + text.size();
        auto [stop, error] = std::from_chars(text.data(), end, value);
        if (text.empty() || error != std::errc() || stop != end || value < min || value > max) {
          return fmt::format("expected {}, got '{}'", expected, text);
        }
        return "";
      },
      range);
}

// A number of seconds >= 0, e.g. 10 or 2.5.
CLI::Validator non_negative_seconds() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::size_t used = 0;
        double seconds = -1;
        try {
          seconds = std::stod(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != text.size() || !std::isfinite(seconds) || seconds < 0) {
          return fmt::format("expected a number of seconds >= 0, got '{}'", text);
        }
        return "";
      },
      ">=0");
}

// Fills in what the command line leaves open: the port, the token.
void complete(LaunchOptions& options) {
  BRISK_CHECK(options.node_rank >= 0 && options.node_rank < options.nnodes,
              "launch: --node-rank {} is outside [0, {}) for --nnodes {}", options.node_rank, options.nnodes,
              options.nnodes);
  BRISK_CHECK(!options.command.empty(), "launch: no worker program given (see --help)");
  if (options.master_port == 0) {
    BRISK_CHECK(options.nnodes == 1,
                "launch: --nnodes {} needs --master-port, the same on every node (a free port can only "
                "be chosen for a single node)",
                options.nnodes);
    options.master_port = brisk::launch::free_port(options.master_addr);
  }
  if (options.control_port == 0) {
    BRISK_CHECK(options.master_port < 65535, "launch: --master-port 65535 leaves no port for the control store's "
                                             "default (--master-port + 1); give --control-port");
    options.control_port = options.master_port + 1;
  }
  if (const char* token = std::getenv("BRISK_STORE_TOKEN"); token != nullptr && *token != '\0') {
    BRISK_CHECK(brisk::launch::is_valid_store_token(token), "launch: BRISK_STORE_TOKEN must be hex digits, got '{}'",
                token);
    options.store_token = token;
  } else {
    BRISK_CHECK(options.nnodes == 1,
                "launch: --nnodes {} needs BRISK_STORE_TOKEN set to the same hex secret on every node "
                "(e.g. BRISK_STORE_TOKEN=$(openssl rand -hex 16))",
                options.nnodes);
    options.store_token = brisk::launch::random_store_token();
  }
}

}  // namespace

int main(int argc, char** argv) {
  // `bazel run //tools/launch -- ... worker args` starts the launcher in its runfiles tree; the
  // worker's path and the paths among its arguments (data, checkpoints) are the user's,
  // relative to where bazel run was called, which Bazel names in BUILD_WORKING_DIRECTORY.
  if (const char* dir = std::getenv("BUILD_WORKING_DIRECTORY"); dir != nullptr && *dir != '\0') {
    if (chdir(dir) != 0) {
      fmt::print(stderr, "launch: cannot enter BUILD_WORKING_DIRECTORY '{}': {}\n", dir, std::strerror(errno));
      return 2;
    }
  }
  LaunchOptions options;
  double grace_seconds = 10;
  CLI::App app{
      "Starts nproc-per-node copies of a worker program with RANK, WORLD_SIZE, LOCAL_RANK, "
      "LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR, MASTER_PORT and BRISK_STORE_TOKEN set (and "
      "OMP_NUM_THREADS=1 when several share the node and it is not set), prefixes their output "
      "lines with [rank N], forwards SIGINT/SIGTERM/SIGHUP/SIGQUIT/SIGUSR1 to them, and when one fails stops the "
      "others and exits with its status (128 + signal for a signal; 75 when every worker was preempted and saved: "
      "requeue), or with --max-restarts starts them all again. "
      "BRISK_STORE_TOKEN is taken from "
      "the environment when set (required, and the same everywhere, for --nnodes > 1), else drawn at "
      "random.",
      "launch"};
  app.add_option("--nproc-per-node,--nproc_per_node", options.nproc_per_node, "workers on this node")
      ->check(integer_in(1, INT_MAX));
  app.add_option("--nnodes", options.nnodes, "nodes in the job")->check(integer_in(1, INT_MAX));
  app.add_option("--node-rank,--node_rank", options.node_rank, "this node's index, 0 .. nnodes - 1")
      ->check(integer_in(0, INT_MAX));
  app.add_option("--master-addr,--master_addr", options.master_addr, "address of the node that hosts rank 0's store")
      ->capture_default_str();
  app.add_option("--master-port,--master_port", options.master_port,
                 "port of the store (default: a free port, single node only)")
      ->check(integer_in(0, 65535));
  app.add_option("--control-port,--control_port", options.control_port,
                 "port on --master-addr of the launchers' control store, through which the nodes of a job with "
                 "--max-restarts and --nnodes > 1 restart together (default: --master-port + 1)")
      ->check(integer_in(0, 65535));
  app.add_option("--grace-period,--grace_period", grace_seconds,
                 "seconds between SIGTERM and SIGKILL when stopping workers")
      ->check(non_negative_seconds())
      ->capture_default_str();
  app.add_option("--max-restarts,--max_restarts", options.max_restarts,
                 "times the whole group of workers is started again after a worker fails (each restart a new "
                 "round: TORCHELASTIC_RESTART_COUNT and BRISK_RESTART_ROUND tell the workers which)")
      ->check(integer_in(0, INT_MAX))
      ->capture_default_str();
  // The first word that is not an option starts the worker's command line.
  app.prefix_command();
  const std::string see_help = "see launch --help";
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) return app.exit(error);  // --help
    fmt::print(stderr, "launch: {} ({})\n", error.what(), see_help);
    return 2;
  }
  options.command = app.remaining();
  // prefix_command() also stops at an option it does not know, which would then be run as the
  // worker program.
  if (!options.command.empty() && options.command.front().size() > 1 && options.command.front() != "--" &&
      options.command.front()[0] == '-') {
    fmt::print(stderr, "launch: unknown option '{}' (the launcher's options come before the worker program; {})\n",
               options.command.front(), see_help);
    return 2;
  }
  if (!options.command.empty() && options.command.front() == "--") options.command.erase(options.command.begin());
  options.grace_period = std::chrono::milliseconds(static_cast<int64_t>(grace_seconds * 1000));

  try {
    complete(options);
    brisk::launch::Supervisor supervisor(std::move(options));
    return supervisor.run();
  } catch (const brisk::Error& error) {
    fmt::print(stderr, "{}\n", error.what());
    return 2;
  }
}
