#pragma once
// The process's MPI library, as Brisk uses it: started once (MPI_Init_thread asking for
// MPI_THREAD_MULTIPLE) on a thread of its own that lives until the process exits and then
// finalizes MPI (when it exits with status 0: a failing rank leaves at once, so that the
// starter stops the job), unless the program started MPI itself. With MPI_THREAD_MULTIPLE, MPI is
// called from any thread; with less, every MPI call goes through that one thread (call()),
// so Brisk never calls MPI from two threads where the library forbids it. A program that
// started MPI with less than MPI_THREAD_SERIALIZED is refused, naming the level.
//
// Errors: MPI's calls return their errors (MPI_ERRORS_RETURN on the communicators Brisk
// uses) and check() raises them as brisk::Error naming the call and MPI's message; a wait()
// past its timeout raises naming what it waited for, instead of hanging.
#include <mpi.h>

#include <chrono>
#include <functional>
#include <string>

namespace brisk::dist::mpi {

// Starts MPI unless it runs already; raises if it cannot (finalized, too low a thread level).
void ensure_started();
// MPI_COMM_WORLD's rank and size (starts MPI).
int world_rank();
int world_size();
// The thread level MPI provides, and its name ("MPI_THREAD_MULTIPLE").
int thread_level();
const char* thread_level_name(int level);
// Whether the library passes CUDA device pointers itself, and its answer in words for
// messages: Open MPI's MPIX_Query_cuda_support() at run time (starts MPI), e.g.
// "MPIX_Query_cuda_support() returned 0 (mpi-ext.h: MPIX_CUDA_AWARE_SUPPORT 0)".
struct CudaAwareness {
  bool aware = false;
  std::string answer;
};
CudaAwareness cuda_awareness();

// Runs `body`, which calls MPI, where MPI may be called: here with MPI_THREAD_MULTIPLE, else on
// the MPI thread (waiting for it). Exceptions propagate.
void call(const std::function<void()>& body);
// Polls `request` (through call()) until it completes; after `timeout` raises "<what>: not
// complete after <timeout> ms" (the request is abandoned: the group that posted it is broken).
void wait(MPI_Request& request, std::chrono::milliseconds timeout, const std::string& what);
// Runs `blocking` (blocking MPI calls) through call() on a thread of its own and waits for it
// at most `timeout`: past it raises "<what>: not complete after <timeout> ms" and leaves the
// thread inside MPI, which cannot cancel a blocking call (the group that made it is broken).
// `blocking` must own what it uses. Exceptions propagate.
void run_blocking(std::function<void()> blocking, std::chrono::milliseconds timeout, const std::string& what);
// Raises "<call> failed: <MPI's message>" unless rc is MPI_SUCCESS.
void check(int rc, const char* call);

// A failure broke a process group: at exit, even with status 0, MPI is not finalized
// (MPI_Finalize waits for every rank, and a failed job's ranks are not all coming), so the
// starter sees the job fail.
void note_failure();

}  // namespace brisk::dist::mpi
