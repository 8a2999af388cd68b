#include "profiler/record.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>

namespace brisk::profiler {

std::atomic<bool> detail::recording{false};

namespace {

// The events of one thread. The thread appends under its own (uncontended) mutex; the session
// takes them at stop. Kept alive by the registry after the thread ends, so a thread that
// finished during the session still reports.
struct ThreadBuffer {
  std::mutex mutex;
  std::vector<Event> events;
  int64_t thread_id = 0;
};

struct Registry {
  std::mutex mutex;
  std::vector<std::shared_ptr<ThreadBuffer>> buffers;
};

std::vector<ScopeObserver*>& observers() {
  static std::vector<ScopeObserver*> list;
  return list;
}

Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: threads may record during exit
  return *r;
}

ThreadBuffer& this_thread_buffer() {
  thread_local std::shared_ptr<ThreadBuffer> buffer = [] {
    auto b = std::make_shared<ThreadBuffer>();
    b->thread_id = static_cast<int64_t>(::syscall(SYS_gettid));
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.buffers.push_back(b);
    return b;
  }();
  return *buffer;
}

void append(Event event) {
  ThreadBuffer& buffer = this_thread_buffer();
  event.thread_id = buffer.thread_id;
  std::lock_guard<std::mutex> lock(buffer.mutex);
  buffer.events.push_back(std::move(event));
}

}  // namespace

const char* category_name(Category category) {
  switch (category) {
    case Category::Op: return "cpu_op";
    case Category::Autograd: return "autograd";
    case Category::Optimizer: return "optimizer";
    case Category::DataLoading: return "data_loading";
    case Category::Collective: return "collective";
    case Category::Ddp: return "ddp";
    case Category::User: return "user_annotation";
    case Category::Kernel: return "kernel";
  }
  return "unknown";
}

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void record_interval(Category category, std::string name, int64_t start_ns, int64_t end_ns, Args args) {
  if (!is_enabled()) return;
  append(Event{std::move(name), category, start_ns, end_ns, 0, std::move(args), /*async=*/true});
}

void RecordScope::begin(Category category, std::string name, Args args) {
  event_.emplace();
  event_->name = std::move(name);
  event_->category = category;
  event_->args = std::move(args);
  event_->start_ns = now_ns();
  for (ScopeObserver* observer : observers()) observer->on_begin(*event_);
}

void RecordScope::end() {
  for (ScopeObserver* observer : observers()) observer->on_end(*event_);
  event_->end_ns = now_ns();
  // A scope that outlives the session (stop() ran inside it) is dropped: the session is over.
  if (is_enabled()) append(std::move(*event_));
}

void add_scope_observer(ScopeObserver* observer) { observers().push_back(observer); }

void detail::start_recording() {
  stop_recording();  // drop what an earlier session left unread
  recording.store(true, std::memory_order_relaxed);
}

std::vector<Event> detail::stop_recording() {
  recording.store(false, std::memory_order_relaxed);
  std::vector<Event> all;
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (auto& buffer : r.buffers) {
    std::lock_guard<std::mutex> buffer_lock(buffer->mutex);
    for (Event& e : buffer->events) all.push_back(std::move(e));
    buffer->events.clear();
  }
  // Buffers of threads that have ended (only the registry holds them) go.
  r.buffers.erase(std::remove_if(r.buffers.begin(), r.buffers.end(), [](const auto& b) { return b.use_count() == 1; }),
                  r.buffers.end());
  for (ScopeObserver* observer : observers()) {
    for (Event& e : observer->collect()) all.push_back(std::move(e));
  }
  return all;
}

}  // namespace brisk::profiler
