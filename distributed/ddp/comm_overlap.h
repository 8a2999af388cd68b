#pragma once
// How much of one backward's gradient communication DistributedDataParallel hid behind the
// backward computation (PyTorch's DDP logging calls it the compute/communication overlap):
//
//   loss.backward();
//   dist::CommOverlap overlap = ddp->comm_overlap();
//   fmt::print("all-reduce {:.1f} ms, {:.0f}% hidden\n", overlap.communication_ms, 100 * overlap.hidden_fraction());
//
// Communication time is the union over buckets of [handed to the comm hook, reduced]: while
// some bucket is queued or being reduced. Whatever of it falls before autograd finished
// computing gradients is hidden; the rest is exposed, time the end of backward waited for.
#include "distributed/ddp/reducer.h"

namespace brisk::dist {

struct CommOverlap {
  double communication_ms = 0.0;
  double hidden_ms = 0.0;   // of communication_ms, before the end of backward's computation
  double exposed_ms = 0.0;  // of communication_ms, after it
  // hidden_ms / communication_ms; 1 when there was no communication (nothing was exposed).
  double hidden_fraction() const { return communication_ms > 0.0 ? hidden_ms / communication_ms : 1.0; }
  // Sums, to report several steps together.
  CommOverlap& operator+=(const CommOverlap& other) {
    communication_ms += other.communication_ms;
    hidden_ms += other.hidden_ms;
    exposed_ms += other.exposed_ms;
    return *this;
  }
};

// Of a timeline whose bucket_launched and bucket_reduced are filled for every bucket (a
// synchronizing backward); zeros otherwise.
CommOverlap comm_overlap(const ReducerTimeline& timeline);

}  // namespace brisk::dist
