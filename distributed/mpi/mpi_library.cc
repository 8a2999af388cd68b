#include "distributed/mpi/mpi_library.h"

#include <mpi-ext.h>
#include <stdlib.h>  // on_exit

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <exception>
#include <future>
#include <mutex>
#include <thread>

#include "tensor/error.h"

namespace brisk::dist::mpi {
namespace {

// The thread that started MPI (when Brisk did) and runs the calls that must not come from
// elsewhere; never destroyed: groups may outlive static destruction.
class MpiThread {
 public:
  MpiThread() : thread_([this] { loop(); }) {}

  void run(std::function<void()> task) {
    std::packaged_task<void()> packaged(std::move(task));
    std::future<void> done = packaged.get_future();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(std::move(packaged));
    }
    cv_.notify_all();
    done.get();
  }

  bool on_this_thread() const { return std::this_thread::get_id() == thread_.get_id(); }

  // Runs `last` (MPI_Finalize) on the thread, then ends it.
  void finish(std::function<void()> last) {
    run(std::move(last));
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  void loop() {
    for (;;) {
      std::packaged_task<void()> task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;
        task = std::move(queue_.front());
        queue_.pop_front();
      }
      task();
    }
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::packaged_task<void()>> queue_;
  bool stop_ = false;
  std::thread thread_;
};

struct Library {
  std::once_flag started;
  MpiThread* thread = nullptr;  // set when Brisk started MPI
  int level = MPI_THREAD_SINGLE;
  int rank = 0;
  int size = 1;
  std::atomic<bool> failed{false};
};

Library& library() {
  static Library* l = new Library();  // never destroyed, as the thread
  return *l;
}

// At exit, once the process groups are gone (registered before any of them exists, so it runs
// after their destructors): MPI_Finalize on the thread that started MPI, for a job that ends
// well. It waits for every rank to finalize, so a process that exits with a failure (a status
// other than 0, or after note_failure()) skips it: mpirun then sees the failure at once and
// stops the job, instead of this rank waiting in MPI_Finalize for peers that are waiting for it.
void finalize_at_exit(int status, void*) {
  Library& l = library();
  if (l.thread == nullptr || status != 0 || l.failed.load()) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  l.thread->finish([] { MPI_Finalize(); });
}

[[maybe_unused]] const bool finalize_registered = [] {
  on_exit(finalize_at_exit, nullptr);  // glibc's atexit with the exit status
  return true;
}();

void start() {
  Library& l = library();
  int initialized = 0;
  check(MPI_Initialized(&initialized), "MPI_Initialized");
  if (initialized) {
    check(MPI_Query_thread(&l.level), "MPI_Query_thread");
    BRISK_CHECK(l.level >= MPI_THREAD_SERIALIZED,
                "MPI backend: the program started MPI with {}; Brisk calls MPI from its own threads, which needs at "
                "least MPI_THREAD_SERIALIZED (MPI_THREAD_MULTIPLE is best): start MPI with MPI_Init_thread(..., "
                "MPI_THREAD_MULTIPLE, ...) or let Brisk start it",
                thread_level_name(l.level));
  } else {
    int finalized = 0;
    check(MPI_Finalized(&finalized), "MPI_Finalized");
    BRISK_CHECK(!finalized, "MPI backend: MPI was finalized already; it cannot be started again in this process");
    l.thread = new MpiThread();
    l.thread->run([&] { check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &l.level), "MPI_Init_thread"); });
    BRISK_CHECK(l.level >= MPI_THREAD_FUNNELED,
                "MPI backend: the MPI library provides only {}; Brisk needs at least MPI_THREAD_FUNNELED",
                thread_level_name(l.level));
  }
  call([&] {
    check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    check(MPI_Comm_rank(MPI_COMM_WORLD, &l.rank), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &l.size), "MPI_Comm_size");
  });
}

}  // namespace

void ensure_started() {
  Library& l = library();
  std::call_once(l.started, start);
}

int world_rank() {
  ensure_started();
  return library().rank;
}

int world_size() {
  ensure_started();
  return library().size;
}

int thread_level() {
  ensure_started();
  return library().level;
}

const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    default: return "an unknown MPI thread level";
  }
}

CudaAwareness cuda_awareness() {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  // As Open MPI's documentation checks: the run-time answer, which is 0 when the library was
  // built without CUDA support.
  ensure_started();
  int answer = 0;
  call([&] { answer = MPIX_Query_cuda_support(); });
  return {answer == 1, fmt::format("MPIX_Query_cuda_support() returned {} (mpi-ext.h: MPIX_CUDA_AWARE_SUPPORT {})",
                                   answer, MPIX_CUDA_AWARE_SUPPORT)};
#else
  return {false, "this MPI library has no MPIX_Query_cuda_support (Open MPI's CUDA extension)"};
#endif
}

void call(const std::function<void()>& body) {
  Library& l = library();
  // With less than MPI_THREAD_MULTIPLE, one thread calls MPI: Brisk's, or (the program started
  // MPI, SERIALIZED) any one thread at a time, which the mutex ensures among Brisk's calls.
  if (l.level == MPI_THREAD_MULTIPLE) return body();
  if (l.thread != nullptr) {
    if (l.thread->on_this_thread()) return body();
    return l.thread->run(body);
  }
  static std::mutex serialized;
  std::lock_guard<std::mutex> lock(serialized);
  body();
}

void wait(MPI_Request& request, std::chrono::milliseconds timeout, const std::string& what) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto pause = std::chrono::microseconds(5);
  for (;;) {
    int done = 0;
    call([&] { check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test"); });
    if (done) return;
    if (Clock::now() - start > timeout) {
      BRISK_FAIL("{}: not complete after {} ms", what, timeout.count());
    }
    // Short pauses first (a collective of small tensors completes in microseconds), then at
    // most 1 ms between polls, so a long wait costs little CPU.
    std::this_thread::sleep_for(pause);
    pause = std::min<std::chrono::microseconds>(pause * 2, std::chrono::milliseconds(1));
  }
}

void run_blocking(std::function<void()> blocking, std::chrono::milliseconds timeout, const std::string& what) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> finished = done->get_future();
  std::thread thread([blocking = std::move(blocking), done] {
    try {
      call(blocking);
      done->set_value();
    } catch (...) {
      done->set_exception(std::current_exception());
    }
  });
  if (finished.wait_for(timeout) != std::future_status::ready) {
    thread.detach();  // it owns what it uses, and the process is expected to end
    BRISK_FAIL("{}: not complete after {} ms", what, timeout.count());
  }
  thread.join();
  finished.get();
}

void check(int rc, const char* call_name) {
  if (rc == MPI_SUCCESS) return;
  char message[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(rc, message, &length);
  BRISK_FAIL("{} failed: {}", call_name, std::string(message, static_cast<size_t>(length)));
}

void note_failure() { library().failed.store(true); }

}  // namespace brisk::dist::mpi
