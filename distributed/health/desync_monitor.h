#pragma once
// DesyncMonitor: detects and explains collectives that the ranks of a group call differently
// (another numel, dtype, op, root or reduce op) or not at all, without a host or network
// round trip on the path of any collective. Part of a group's Watchdog (watchdog.h), whose
// thread calls step() every kStepInterval. record() and finished() only touch memory; step()
// publishes this rank's signatures and progress to the group's store (keys "desync/<rank>/...")
// and compares them with the peers'; diagnose() and flight_record() explain a failure from what
// the ranks published.
//
// step() runs on one thread at a time; the other methods may be called from any thread.
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "distributed/health/collective_signature.h"
#include "distributed/store/store.h"

namespace brisk::dist {

class DesyncMonitor {
 public:
  using MismatchHandler = std::function<void(const std::string& message)>;

  // `store` is the group's own (a PrefixStore). With `verify` (ProcessGroupOptions::check_desync)
  // step() compares the peers' signatures with this rank's as they appear, and at the first
  // difference calls on_mismatch once, with a message naming the collective, each rank's call
  // and the odd rank(s); the backend then fails its pending work (the mismatched collective
  // itself cannot complete: see fingerprint() in collective_signature.h).
  DesyncMonitor(const Store& store, int rank, int size, bool verify, MismatchHandler on_mismatch,
                std::chrono::milliseconds call_timeout);

  // How often step() is meant to run.
  static constexpr std::chrono::milliseconds kStepInterval{50};
  // Publishes what was recorded since the last step, in batches, compares (with `verify`) and
  // checks for stalls. It asks the store through a client whose calls give up after
  // call_timeout: what a call that gave up did not do is done at a later step; after a call
  // that failed sooner (the store's host exited) the monitor stops using the store.
  void step();

  // This rank enters collective sig.seq (seqs are recorded in order, 0, 1, 2, ...). Memory only.
  void record(const CollectiveSignature& sig);

  // Why collective #seq failed or timed out (check on or off), as far as the published
  // signatures tell, in at most a few seconds even when the store is gone: "collective desync at
  // #seq: ranks [0, 2] called ...; ranks [1] called ...; odd rank: 1", else "Ranks that never
  // entered all_reduce #seq: [2]" (or "none (...)"), or why that is unknown ("...: rank 0,
  // which hosts the store at host:port, did not answer within 3 s").
  std::string diagnose(int64_t seq);

  // The store has not answered for `silence` (the heartbeat says so): diagnose() and
  // flight_record() no longer ask it, and say "rank 0, which hosts the store at host:port, has
  // not answered for <silence> s".
  void store_is_silent(std::chrono::steady_clock::duration silence);

  // This rank completed collectives [0, seq]. Memory only.
  void finished(int64_t seq);

  // Calls `handler` (in step(), once per collective) when this rank has waited
  // `after` in a collective that some peers have not entered, naming them:
  //   "waiting 2.0 s in all_reduce #12(numel 8, float32, AVG) for rank 1, which has not entered
  //    it (an infinite loop, a deadlock, or long work outside collectives)"
  // Several handlers may wait for different times (a warning, then a failure). Call it before
  // the first step().
  void on_stall(std::chrono::milliseconds after, std::function<void(const std::string& message)> handler);

  // The flight recorder: per rank, how many collectives it started and finished and the last
  // kFlightRecords it started, one line each:
  //   "flight recorder (the last collectives each rank started; a peer's as it last published them):
  //      rank 0: started 13, finished 12; last: all_reduce #9(numel 4, float32, SUM), ...
  //      rank 1: started 12, finished 12; last: ..."
  // This rank's line comes from memory; the others' from the store (published every step,
  // so up to one step behind), asked for at most 3 s (not at all without ask_store: a
  // caller that knows the store hangs, nor after a read that did not come back in time).
  std::string flight_record(bool ask_store = true);
  static constexpr int64_t kFlightRecords = 4;

  // What the ranks published about one collective.
  struct Snapshot {
    std::vector<std::optional<CollectiveSignature>> calls;  // per rank; unset: not published
    std::vector<int64_t> progress;                          // per rank: collectives entered; -1: unknown
  };

  // Signatures of one published batch: seqs [batch * kBatch, (batch + 1) * kBatch).
  static constexpr int64_t kBatch = 64;
  // Batches kept in memory and in the store per rank (older ones are deleted).
  static constexpr int64_t kKeptBatches = 8;

 private:
  // on_stall's check; reads the peers' progress from the store.
  void check_stall();
  // Writes the batches recorded since the last publish and the progress.
  void publish();
  // Compares the peers' published signatures with this rank's, as far as all have published.
  void verify_step();
  // store_is_silent() with its message; what the monitor says of the store from then on (the
  // first such message).
  std::string silent_store(const std::string& message);
  // That message, once there is one.
  std::optional<std::string> silence();
  // This rank's flight-recorder line, from memory.
  std::string own_flight_line();
  // What every rank published about #seq, waiting up to kSettleTime for all of them.
  Snapshot settled_snapshot(int64_t seq, const CollectiveSignature& mine);
  static constexpr std::chrono::seconds kSettleTime{1};

  const std::chrono::milliseconds call_timeout_;
  const std::shared_ptr<Store> store_;  // each call gives up after call_timeout_: what step() asks
  // The same store, each read of which gives up after a few seconds: what the failure paths
  // (diagnose(), flight_record()) ask, since the store's host may be the rank that failed.
  const std::shared_ptr<Store> answering_;
  const int rank_;
  const int size_;
  const bool verify_;
  const MismatchHandler on_mismatch_;

  // Guards batches_, recorded_, finished_, waiting_since_, stall_handlers_ and silence_; never
  // held during store I/O.
  std::mutex mutex_;
  std::map<int64_t, std::vector<CollectiveSignature>> batches_;
  int64_t recorded_ = 0;  // collectives recorded (the next seq)
  int64_t finished_ = 0;  // collectives completed
  // Since when collective #finished_ has been waited for (the last record() or finished()
  // that changed what this rank waits on).
  std::chrono::steady_clock::time_point waiting_since_;
  struct StallHandler {
    std::chrono::milliseconds after;
    std::function<void(const std::string&)> handler;
    int64_t called_seq = -1;  // the collective it was last called for
  };
  std::vector<StallHandler> stall_handlers_;

  // step()'s own.
  int64_t published_ = 0;  // collectives published
  int64_t published_finished_ = 0;
  int64_t verified_ = 0;       // seqs below this were compared with every peer
  bool reported_ = false;      // on_mismatch was called
  bool store_failed_ = false;  // a store call failed: the store is not used again (but by the failure paths)
  // Set when a failure path's read did not come back in time, or by store_is_silent(): the next
  // one does not wait again, and says this (guarded by mutex_).
  std::optional<std::string> silence_;
};

}  // namespace brisk::dist
