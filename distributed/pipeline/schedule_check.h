#pragma once
// Checks a pipeline schedule's programs before they run, and measures them on a model of time:
//
//   ScheduleReport report = check_schedule(PipelineSchedule::make(ScheduleKind::GPipe, 4, 8));
//   std::cout << report.summary();   // bubble 0.375, peak activations [8, 8, 8, 8], 42 messages
//
// The checks (an error names the ranks and the actions involved):
// - every rank runs each of its stages' forward and backward once per microbatch, forward
//   first, the backward whole or split (an input backward, then a weight backward); each
//   computation comes after the receive (or local computation) producing its input, each send
//   after the computation producing what it sends;
// - every send has exactly one receive and the reverse, matched in order per (sender,
//   receiver, tag) as the process groups match them (action.h's message_tag);
// - running the programs cannot deadlock: sends never block (their Works are waited at the end
//   of the step), a receive blocks until its message is sent. The ranks are simulated; ranks
//   that all wait on one another are reported as the cycle of their receives.
//
// The cost model: a rank's forward of one microbatch through all of its layers costs 1 and the
// backward 2 (the usual 2x), of which the weight gradients 1 (a split backward: input 1, weight
// 1); a chunk costs its share (1/chunks, 2/chunks); messages cost 0. A microbatch's activations
// count from its forward to its backward (whole or weight). The bubble of a rank is its idle
// time within the step over its busy time (Megatron-LM's definition), which this model makes
// (ranks-1)/m for GPipe and 1F1B and (ranks-1)/(chunks*m) for interleaved 1F1B. For ZB-H1, with
// forward F, input backward I and weight backward W <= F, it is
// ((p-1)(F+I) - min(m-1, p-1) W) / (m (F+I+W)): with F = I = W, (p-1)/(3m) once m >= p, a third
// of 1F1B's. Its share of the step is bubble/(1+bubble).
#include <string>
#include <vector>

#include "distributed/pipeline/pipeline_schedule.h"

namespace brisk::dist::pipeline {

struct CostModel {
  double forward = 1.0;          // a rank's forward of one microbatch, all chunks together
  double backward = 2.0;         // its backward
  double weight_backward = 1.0;  // the part of the backward a BackwardWeight runs
};

struct ScheduleReport {
  double step_time = 0;               // from the first action to the last rank's end
  std::vector<double> busy;           // per rank: the time computing
  std::vector<double> bubble;         // per rank: (step_time - busy) / busy
  double bubble_fraction = 0;         // the largest bubble of a rank
  std::vector<int> peak_activations;  // per rank: most microbatch-stages forwarded, not yet backwarded
  int messages_per_step = 0;          // sends (each one header and its tensors on the wire)

  // "gpipe on 4 ranks x 1 chunks, 8 microbatches: bubble 0.375 (formula (p-1)/m = 0.375),
  // peak activations per rank [8, 8, 8, 8], 42 messages per step".
  std::string summary;
};

// Throws brisk::Error when the schedule breaks one of the rules above.
ScheduleReport check_schedule(const PipelineSchedule& schedule, const CostModel& costs = {});

// The bubble fraction the formula gives: (ranks-1)/m for gpipe and 1f1b, (ranks-1)/(chunks*m)
// for interleaved, ZB-H1's above (on `costs`) for zb-h1.
double formula_bubble(const PipelineSchedule& schedule, const CostModel& costs = {});

}  // namespace brisk::dist::pipeline
