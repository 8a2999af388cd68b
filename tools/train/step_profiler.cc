#include "tools/train/step_profiler.h"

#include <spdlog/spdlog.h>

#include <regex>

#include "tensor/error.h"

namespace brisk::train {
namespace {

constexpr size_t kTableRows = 15;

std::string replace_rank(std::string pattern, int rank) {
  const std::string key = "{rank}";
  for (size_t at = pattern.find(key); at != std::string::npos; at = pattern.find(key, at)) {
    pattern.replace(at, key.size(), std::to_string(rank));
  }
  return pattern;
}

}  // namespace

std::optional<StepRange> parse_step_range(const std::string& text) {
  if (text.empty()) return std::nullopt;
  std::smatch m;
  BRISK_CHECK(std::regex_match(text, m, std::regex(R"((\d+)(?:-(\d+))?)")),
              "--profile-steps \"{}\": expected A-B (steps A to B, counted from 0) or A", text);
  StepRange range{std::stoll(m[1]), m[2].matched ? std::stoll(m[2]) : std::stoll(m[1])};
  BRISK_CHECK(range.first <= range.last, "--profile-steps \"{}\": the first step {} is after the last {}", text,
              range.first, range.last);
  return range;
}

StepProfiler::StepProfiler(StepRange range, std::string trace_pattern, int rank)
    : range_(range), trace_path_(replace_rank(std::move(trace_pattern), rank)), rank_(rank) {}

void StepProfiler::at_step(int64_t steps_done) {
  if (written_) return;
  if (!profiler_.is_running() && steps_done == range_.first) {
    profiler_.start();
  } else if (profiler_.is_running() && steps_done == range_.last + 1) {
    write();
  }
}

void StepProfiler::finish() {
  if (!profiler_.is_running()) return;
  spdlog::warn("--profile-steps {}-{}: the run ended inside the range; the trace holds the steps it reached",
               range_.first, range_.last);
  write();
}

void StepProfiler::write() {
  profiler_.stop();
  written_ = true;
  profiler_.export_chrome_trace(trace_path_, fmt::format("rank {}", rank_));
  spdlog::info("profiled steps {} to {}: trace {}", range_.first, range_.last, trace_path_);
  if (rank_ == 0)
    spdlog::info("top ops by self time:\n{}", profiler_.key_averages().table("self_cpu_time_total", kTableRows));
}

}  // namespace brisk::train
