#pragma once
// Recording profiler events: the part of brisk::profiler that instrumented code calls. A leaf
// library (no tensors), so every layer, the tensor library included, can record.
//
//   profiler::RecordScope scope(profiler::Category::Optimizer, "Optimizer.step#SGD.step");
//   profiler::RecordScope op(profiler::Category::Op, "mul", [&] { return profiler::Args{{"dtype", "float32"}}; });
//
// While no profiler runs (the default), a scope costs one relaxed atomic load and a branch:
// no clock read, no allocation, and the argument lambda is never called. While one runs
// (profiler/profiler.h), each scope becomes one Event with its start and end (steady clock)
// and its thread, appended to a buffer of that thread.
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "brisk/requires_cxx17.h"

namespace brisk::profiler {

// What an event is; the Chrome trace shows it as the event's "cat".
enum class Category : uint8_t {
  Op,           // a kernel call of the tensor library (name, input shapes and dtypes)
  Autograd,     // one node of the backward graph run by the engine
  Optimizer,    // an optimizer step
  DataLoading,  // producing one batch
  Collective,   // a collective running on its process group (op, bytes, group)
  Ddp,          // DistributedDataParallel: a bucket from its launch to the end of its all-reduce
  User,         // a scope the program marks itself (profiler::RecordScope with Category::User)
  Kernel,       // an op's time on a GPU, from CUDA events (cuda/profiler_ranges.cc)
};

const char* category_name(Category category);

// Extra fields of an event, shown under "args" in the trace.
using Args = std::vector<std::pair<std::string, std::string>>;

struct Event {
  std::string name;
  Category category = Category::User;
  int64_t start_ns = 0;  // steady clock
  int64_t end_ns = 0;
  int64_t thread_id = 0;  // the kernel's thread id (gettid), as Perfetto shows it
  Args args;
  // Recorded by record_interval: may overlap the thread's other events without nesting in
  // them (a Chrome trace async event, on a track of its own).
  bool async = false;

  int64_t duration_ns() const { return end_ns - start_ns; }
};

namespace detail {
extern std::atomic<bool> recording;
}  // namespace detail

// Whether a profiler is recording now: what every instrumented place checks first.
inline bool is_enabled() { return detail::recording.load(std::memory_order_relaxed); }

// The steady clock in nanoseconds, the time base of events.
int64_t now_ns();

// Records an event whose start and end the caller measured (an interval that began on
// another thread, e.g. a bucket launched by backward and reduced on the group's thread), as
// an async event of the calling thread; nothing happens when no profiler records.
void record_interval(Category category, std::string name, int64_t start_ns, int64_t end_ns, Args args = {});

namespace detail {
// A scope's name: a string, or a function returning one (called only when recording, for
// names that cost a string to make).
template <typename Name>
std::string name_of(Name&& name) {
  if constexpr (std::is_invocable_v<Name>) {
    return std::string(name());
  } else {
    return std::string(std::string_view(name));
  }
}
}  // namespace detail

// One event from construction to destruction, on the constructing thread. `name` is a string
// or a function returning one; `make_args()` returns the event's Args. Both are called only
// when recording.
class RecordScope {
 public:
  template <typename Name>
  RecordScope(Category category, Name&& name) {
    if (is_enabled()) begin(category, detail::name_of(name), {});
  }
  template <typename Name, typename MakeArgs>
  RecordScope(Category category, Name&& name, MakeArgs&& make_args) {
    if (is_enabled()) begin(category, detail::name_of(name), make_args());
  }
  ~RecordScope() {
    if (event_) end();
  }
  RecordScope(const RecordScope&) = delete;
  RecordScope& operator=(const RecordScope&) = delete;

 private:
  void begin(Category category, std::string name, Args args);
  void end();

  std::optional<Event> event_;  // engaged while recording: off, a scope is this one flag
};

// Mirrors scopes outside the profiler: the CUDA build's NVTX ranges and CUDA events
// (cuda/profiler_ranges.cc). Called on the scope's thread, only while recording, with the
// scope's event (the same object from begin to end; its end_ns not yet set).
class ScopeObserver {
 public:
  virtual ~ScopeObserver() = default;
  virtual void on_begin(const Event& event) = 0;
  virtual void on_end(const Event& event) = 0;
  // At the end of a session: the events it made of its own (the ops' GPU times).
  virtual std::vector<Event> collect() = 0;
};

// Installs an observer for the rest of the process; at static initialization only (the list
// is read without a lock).
void add_scope_observer(ScopeObserver* observer);

namespace detail {
// The profiler session's side (profiler/profiler.cc): start recording, and stop to take every
// thread's events. Only one session at a time.
void start_recording();
std::vector<Event> stop_recording();
}  // namespace detail

}  // namespace brisk::profiler
