#pragma once
// The bubble of a pipeline step measured in the profiler's timeline, from the events
// PipelineStage records for its actions ("pipeline forward ...", args rank/microbatch/stage):
//
//   profiler::Profiler prof;
//   prof.start();
//   stage.step(inputs, targets);          // on every rank (threads of this process, or each
//   prof.stop();                          // process its own profiler and events)
//   MeasuredBubble measured = measure_bubble(prof.events());
//
// A rank is busy during its forward and backward events; the step runs from the first pipeline
// event to the last. The bubble of a rank is (step - busy) / busy, the definition
// schedule_check.h computes on its cost model, so the two compare directly.
#include <cstdint>
#include <map>
#include <vector>

#include "profiler/record.h"

namespace brisk::dist::pipeline {

struct MeasuredBubble {
  int64_t step_ns = 0;
  std::map<int, int64_t> busy_ns;  // per rank that recorded computations
  std::map<int, double> bubble;    // per rank: (step_ns - busy) / busy
  double bubble_fraction = 0;      // the largest
};

// Whether `event` is one of PipelineStage's actions.
bool is_pipeline_event(const profiler::Event& event);
// The rank that ran it (its "rank" arg).
int pipeline_event_rank(const profiler::Event& event);

// An error when `events` holds no pipeline computation.
MeasuredBubble measure_bubble(const std::vector<profiler::Event>& events);

}  // namespace brisk::dist::pipeline
