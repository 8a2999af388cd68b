#pragma once
// The GPU times of ops, measured by pairs of CUDA events around their kernels
// (cuda/profiler_ranges.cc), as profiler "kernel" events on the host's clock, one track per
// GPU. CUDA measures time only between two events of one device, so each device's times are
// placed through that device's first op: its begin event is taken as the moment the host
// recorded it (so a device's events may sit a little early); durations are the GPU's.
//
// A template over the event type and free of CUDA, so the placement is tested on any machine
// with fake events (tests/cuda/gpu_op_times_test.cc).
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "profiler/record.h"

namespace brisk::cuda {

// One op's GPU time: a pair of marks (CUDA events) of `device` around its kernels.
template <typename Mark>
struct GpuOpTime {
  std::string name;
  int device = 0;
  int64_t host_start_ns = 0;  // when the host recorded `begin`
  Mark begin;
  Mark end;
};

// The profiler events of `ops` (completed), in their order. elapsed_ms(a, b) gives the
// milliseconds from mark a to mark b; it is only asked about marks of one device.
template <typename Mark, typename ElapsedMs>
std::vector<profiler::Event> gpu_op_events(const std::vector<GpuOpTime<Mark>>& ops, const ElapsedMs& elapsed_ms) {
  auto ns = [](float ms) { return static_cast<int64_t>(static_cast<double>(ms) * 1e6); };
  std::map<int, const GpuOpTime<Mark>*> first_of_device;
  std::vector<profiler::Event> events;
  for (const GpuOpTime<Mark>& op : ops) {
    const GpuOpTime<Mark>*& origin = first_of_device[op.device];
    if (origin == nullptr) origin = &op;
    profiler::Event e;
    e.name = op.name;
    e.category = profiler::Category::Kernel;
    e.start_ns = origin->host_start_ns + (origin == &op ? 0 : ns(elapsed_ms(origin->begin, op.begin)));
    e.end_ns = e.start_ns + ns(elapsed_ms(op.begin, op.end));
    e.thread_id = -1 - op.device;  // one track per GPU
    e.args = {{"device", "cuda:" + std::to_string(op.device)}};
    events.push_back(std::move(e));
  }
  return events;
}

}  // namespace brisk::cuda
