#pragma once
// Pipeline schedules as data: the order in which each rank computes its stages' forward and
// backward passes over the microbatches of one step. Messages are added afterwards, once, for
// every rank alike (global_order.h).
//
//   StageLayout layout(4, 1);
//   std::vector<std::vector<Action>> order = compute_orders(ScheduleKind::OneFOneB, layout, 8);
//   order[3]  // rank 3: forward mb 0, backward mb 0, forward mb 1, backward mb 1, ...
//
// GPipe: every forward, then every backward (chunk by chunk, looped over its chunks when a
// rank has several); holds all m*chunks microbatches' activations.
// 1F1B (PipeDream-flush): rank r runs ranks-1-r warm-up forwards, then alternates one forward
// and one backward, then drains the backwards; holds at most ranks-r. One chunk per rank.
// Interleaved 1F1B (Megatron-LM): each rank holds `chunks` stages; microbatches go in rounds
// of `ranks`, each round through chunk 0, 1, ... forward and back down for backward; the
// warm-up is 2*(ranks-1-r) + (chunks-1)*ranks forwards. It shrinks the bubble by `chunks` at
// the price of chunks-times the messages. Needs microbatches to be a multiple of ranks.
// ZB-H1 (Qi et al., "Zero Bubble Pipeline Parallelism", 2023): 1F1B's order with each backward
// split into BackwardInput, in 1F1B's place, and BackwardWeight, which rank r runs r
// microbatches late (after the BackwardInput of microbatch k+r) and the rest at the end: the
// input gradients reach the earlier ranks sooner, and the weight passes fill the waits of the
// cool-down. Every rank then holds up to min(ranks, m) microbatches until their weight pass,
// 1F1B's peak (its rank 0's). One chunk per rank.
#include <string>
#include <vector>

#include "distributed/pipeline/action.h"

namespace brisk::dist::pipeline {

enum class ScheduleKind { GPipe, OneFOneB, Interleaved1F1B, ZeroBubbleH1 };

// "gpipe", "1f1b", "interleaved", "zb-h1".
std::string schedule_name(ScheduleKind kind);
// The inverse of schedule_name; an error naming the known schedules otherwise.
ScheduleKind parse_schedule(const std::string& name);

// For each rank of `layout`, its computations (Forward, Backward or BackwardInput and
// BackwardWeight; peer -1) in the order it runs them. An error when the schedule does not
// support the layout or microbatch count.
std::vector<std::vector<Action>> compute_orders(ScheduleKind kind, const StageLayout& layout, int microbatches);

}  // namespace brisk::dist::pipeline
