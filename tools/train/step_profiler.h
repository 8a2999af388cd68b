#pragma once
// train --profile-steps A-B: the profiler (profiler/profiler.h) recording optimizer steps A to
// B (counted from 0 since the run began, as checkpoint::Progress::step) of every rank, each
// rank writing its own Chrome trace, rank 0 logging the top ops:
//
//   StepProfiler profiler(*range, "trace_rank{rank}.json", run.rank);
//   profiler.at_step(progress.step);                 // before training
//   ... after each step: profiler.at_step(progress.step);
//   profiler.finish();                               // a range the run did not reach the end of
#include <cstdint>
#include <optional>
#include <string>

#include "profiler/profiler.h"

namespace brisk::train {

// Steps first..last, both included.
struct StepRange {
  int64_t first = 0;
  int64_t last = 0;
};

// "A-B" (0 <= A <= B) or "A" (one step); std::nullopt for "" (no profiling). Raises
// brisk::Error naming the flag and the text otherwise.
std::optional<StepRange> parse_step_range(const std::string& text);

class StepProfiler {
 public:
  // `trace_pattern`: where a rank writes its trace, "{rank}" replaced by the rank.
  StepProfiler(StepRange range, std::string trace_pattern, int rank);

  // With the number of steps done so far: starts recording when step range.first comes next,
  // and stops and writes when step range.last is done.
  void at_step(int64_t steps_done);
  // Stops and writes now if still recording (the run ended inside the range).
  void finish();

 private:
  void write();

  StepRange range_;
  std::string trace_path_;
  int rank_;
  profiler::Profiler profiler_;
  bool written_ = false;
};

}  // namespace brisk::train
