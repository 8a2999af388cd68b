#include "cuda/activity_recorder.h"

#include <cupti.h>

#include <cstdlib>
#include <mutex>
#include <vector>

#include "tensor/error.h"

namespace brisk::cuda {
namespace {

void check(CUptiResult result, const char* call) {
  if (result == CUPTI_SUCCESS) return;
  const char* message = nullptr;
  cuptiGetResultString(result, &message);
  BRISK_FAIL("cuda::ActivityRecorder: {} failed: {} (is another profiler, ncu or nsys, attached?)", call,
             message != nullptr ? message : "unknown CUPTI error");
}

constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                         CUPTI_ACTIVITY_KIND_MEMSET};
constexpr size_t kBufferSize = size_t{8} << 20;
constexpr size_t kBufferAlignment = 8;  // CUPTI's requirement for activity buffers

// CUPTI hands completed buffers to a callback, on its own thread or inside FlushAll.
std::mutex intervals_mutex;
std::vector<GpuInterval> recorded_intervals;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlignment, kBufferSize));
  *size = *buffer != nullptr ? kBufferSize : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid_size) {
  std::vector<GpuInterval> intervals;
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        intervals.push_back({static_cast<int64_t>(k->start), static_cast<int64_t>(k->end), true});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        intervals.push_back({static_cast<int64_t>(m->start), static_cast<int64_t>(m->end), false});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        intervals.push_back({static_cast<int64_t>(m->start), static_cast<int64_t>(m->end), false});
        break;
      }
      default: break;
    }
  }
  std::free(buffer);
  std::lock_guard<std::mutex> lock(intervals_mutex);
  recorded_intervals.insert(recorded_intervals.end(), intervals.begin(), intervals.end());
}

int64_t cupti_now() {
  uint64_t ns = 0;
  check(cuptiGetTimestamp(&ns), "cuptiGetTimestamp");
  return static_cast<int64_t>(ns);
}

}  // namespace

ActivityRecorder::~ActivityRecorder() {
  if (!started_) return;
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  for (CUpti_ActivityKind kind : kKinds) cuptiActivityDisable(kind);
  std::lock_guard<std::mutex> lock(intervals_mutex);
  recorded_intervals.clear();
}

void ActivityRecorder::start() {
  BRISK_CHECK(!started_, "cuda::ActivityRecorder::start: already started");
  static std::once_flag registered;
  std::call_once(registered, [] {
    check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "cuptiActivityRegisterCallbacks");
  });
  {
    std::lock_guard<std::mutex> lock(intervals_mutex);
    recorded_intervals.clear();
  }
  for (CUpti_ActivityKind kind : kKinds) check(cuptiActivityEnable(kind), "cuptiActivityEnable");
  window_start_ns_ = cupti_now();
  started_ = true;
}

GpuActivity ActivityRecorder::stop() {
  BRISK_CHECK(started_, "cuda::ActivityRecorder::stop: not started");
  const int64_t window_end_ns = cupti_now();
  started_ = false;
  check(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
  for (CUpti_ActivityKind kind : kKinds) check(cuptiActivityDisable(kind), "cuptiActivityDisable");
  std::vector<GpuInterval> intervals;
  {
    std::lock_guard<std::mutex> lock(intervals_mutex);
    intervals.swap(recorded_intervals);
  }
  return summarize_gpu_activity(std::move(intervals), window_start_ns_, window_end_ns);
}

}  // namespace brisk::cuda
