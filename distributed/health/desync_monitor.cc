#include "distributed/health/desync_monitor.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <thread>

namespace brisk::dist {
namespace {

std::string batch_key(int rank, int64_t batch) { return fmt::format("desync/{}/{}", rank, batch); }
// The number of collectives the rank entered, as decimal text.
std::string progress_key(int rank) { return fmt::format("desync/{}/progress", rank); }
// The number of collectives the rank completed, as decimal text.
std::string finished_key(int rank) { return fmt::format("desync/{}/finished", rank); }

// The store's host (rank 0 for a TCPStore) may be the rank that died or stopped: questions
// to the store from a failure path wait this long at most.
constexpr std::chrono::seconds kStoreAnswerTime{3};

// `what` said of the store's host: "rank 0, which hosts the store at 10.0.0.1:29500, <what>"
// (init_process_group's TCPStore is served by rank 0), else "the store <what>".
std::string of_store_host(const Store& store, const std::string& what) {
  std::string address = store.address();
  return address.empty() ? "the store " + what : fmt::format("rank 0, which hosts the store at {}, {}", address, what);
}

std::string no_answer(const Store& store) {
  return of_store_host(store, fmt::format("did not answer within {} s", kStoreAnswerTime.count()));
}

// Whether calls through a client of with_timeout(timeout), asked from `asked` on, that threw
// gave up waiting (after most of that time: a deadline is kept to the millisecond or so)
// rather than failed (a refused connection fails within its back-off).
bool gave_up(std::chrono::steady_clock::time_point asked, std::chrono::milliseconds timeout) {
  return std::chrono::steady_clock::now() - asked >= timeout * 9 / 10;
}

// "rank 1: started 13, finished 12; last: all_reduce #12(...), ..." (`last` in seq order).
std::string flight_line(int rank, int64_t started, int64_t finished, const std::vector<CollectiveSignature>& last) {
  std::vector<std::string> calls;
  for (const CollectiveSignature& sig : last) calls.push_back(sig.str());
  return fmt::format("rank {}: started {}, finished {}; last: {}", rank, started, finished,
                     calls.empty() ? std::string("none") : fmt::format("{}", fmt::join(calls, ", ")));
}

// A peer's flight-recorder line, from what it published.
std::string peer_flight_line(Store& store, int rank) {
  if (!store.check({progress_key(rank)})) return fmt::format("rank {}: nothing published", rank);
  int64_t started = std::stoll(store.get_string(progress_key(rank)));
  int64_t finished = store.check({finished_key(rank)}) ? std::stoll(store.get_string(finished_key(rank))) : 0;
  int64_t first = std::max<int64_t>(0, started - DesyncMonitor::kFlightRecords);
  std::vector<CollectiveSignature> last;
  for (int64_t batch = first / DesyncMonitor::kBatch; started > 0 && batch <= (started - 1) / DesyncMonitor::kBatch;
       ++batch) {
    if (!store.check({batch_key(rank, batch)})) continue;
    for (const CollectiveSignature& sig : decode_signatures(store.get(batch_key(rank, batch))))
      if (sig.seq >= first && sig.seq < started) last.push_back(sig);
  }
  return flight_line(rank, started, finished, last);
}

using Snapshot = DesyncMonitor::Snapshot;

Snapshot collect(Store& store, int size, int64_t seq) {
  Snapshot snap{std::vector<std::optional<CollectiveSignature>>(static_cast<size_t>(size)),
                std::vector<int64_t>(static_cast<size_t>(size), -1)};
  int64_t batch = seq / DesyncMonitor::kBatch;
  for (int r = 0; r < size; ++r) {
    if (store.check({progress_key(r)})) snap.progress[r] = std::stoll(store.get_string(progress_key(r)));
    if (!store.check({batch_key(r, batch)})) continue;
    for (const CollectiveSignature& sig : decode_signatures(store.get(batch_key(r, batch))))
      if (sig.seq == seq) snap.calls[r] = sig;
  }
  return snap;
}

std::string describe(const Snapshot& snap, int64_t seq, const CollectiveSignature& mine) {
  std::map<std::string, std::vector<int>> by_call;
  std::vector<int> absent;
  for (int r = 0; r < static_cast<int>(snap.calls.size()); ++r) {
    if (snap.calls[r]) by_call[snap.calls[r]->str()].push_back(r);
    else if (snap.progress[r] <= seq) absent.push_back(r);
  }
  std::string never = fmt::format("Ranks that never entered {} #{}: ", collective_name(mine.kind), seq);
  if (by_call.size() <= 1) {
    return never + (absent.empty() ? std::string("none (every rank entered it; a peer died or dropped out during it)")
                                   : fmt::format("[{}]", fmt::join(absent, ", ")));
  }
  // The largest group of equal calls is taken as the intended one; the others are odd.
  std::vector<std::pair<std::string, std::vector<int>>> groups(by_call.begin(), by_call.end());
  std::stable_sort(groups.begin(), groups.end(),
                   [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  std::vector<std::string> lines;
  for (const auto& [call, ranks] : groups)
    lines.push_back(fmt::format("ranks [{}] called {}", fmt::join(ranks, ", "), call));
  std::string message = fmt::format("collective desync at #{}: {}", seq, fmt::join(lines, "; "));
  if (groups[0].second.size() > groups[1].second.size()) {
    std::vector<int> odd;
    for (size_t g = 1; g < groups.size(); ++g) odd.insert(odd.end(), groups[g].second.begin(), groups[g].second.end());
    std::sort(odd.begin(), odd.end());
    message += fmt::format("; odd rank{}: {}", odd.size() == 1 ? "" : "s", fmt::join(odd, ", "));
  } else {
    message += "; no majority, so no single odd rank";
  }
  if (!absent.empty()) message += fmt::format(". {}[{}]", never, fmt::join(absent, ", "));
  return message;
}

}  // namespace

DesyncMonitor::DesyncMonitor(const Store& store, int rank, int size, bool verify, MismatchHandler on_mismatch,
                             std::chrono::milliseconds call_timeout)
    : call_timeout_(call_timeout),
      store_(store.with_timeout(call_timeout)),
      answering_(store.with_timeout(kStoreAnswerTime)),
      rank_(rank),
      size_(size),
      verify_(verify),
      on_mismatch_(std::move(on_mismatch)) {}

void DesyncMonitor::record(const CollectiveSignature& sig) {
  std::lock_guard<std::mutex> lock(mutex_);
  int64_t batch = sig.seq / kBatch;
  batches_[batch].push_back(sig);
  if (recorded_ == finished_) waiting_since_ = std::chrono::steady_clock::now();
  recorded_ = sig.seq + 1;
  while (!batches_.empty() && batches_.begin()->first <= batch - kKeptBatches) batches_.erase(batches_.begin());
}

void DesyncMonitor::step() {
  if (store_failed_) return;
  const auto asked = std::chrono::steady_clock::now();
  try {
    publish();
    if (verify_ && !reported_) verify_step();
    check_stall();
  } catch (const std::exception&) {
    // A call that gave up is tried again at the next step. One that failed means the store is
    // gone (at shutdown its host may exit first): a collective fails if it matters, and
    // diagnose() says so; asking again could wait out reconnecting, so it is not asked.
    if (!gave_up(asked, call_timeout_)) store_failed_ = true;
  }
}

void DesyncMonitor::publish() {
  std::vector<std::pair<int64_t, std::vector<CollectiveSignature>>> changed;
  int64_t recorded, finished;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    recorded = recorded_;
    finished = finished_;
    if (recorded == published_ && finished == published_finished_) return;
    if (recorded != published_)
      for (auto it = batches_.lower_bound(published_ / kBatch); it != batches_.end(); ++it) changed.emplace_back(*it);
  }
  for (const auto& [batch, sigs] : changed) {
    Bytes bytes;
    for (const CollectiveSignature& sig : sigs) append_encoded(bytes, sig);
    store_->set(batch_key(rank_, batch), bytes);
    bool new_batch = batch * kBatch >= published_;
    if (new_batch && batch >= kKeptBatches) store_->delete_key(batch_key(rank_, batch - kKeptBatches));
  }
  store_->set(progress_key(rank_), std::to_string(recorded));
  if (finished != published_finished_) store_->set(finished_key(rank_), std::to_string(finished));
  published_ = recorded;
  published_finished_ = finished;
}

DesyncMonitor::Snapshot DesyncMonitor::settled_snapshot(int64_t seq, const CollectiveSignature& mine) {
  // Naming the odd rank takes every rank's call: wait a little for ranks that have not
  // published #seq yet (a rank that never enters it is named as absent).
  auto deadline = std::chrono::steady_clock::now() + kSettleTime;
  for (;;) {
    Snapshot snap = collect(*store_, size_, seq);
    snap.calls[rank_] = mine;
    bool complete = std::all_of(snap.calls.begin(), snap.calls.end(), [](const auto& c) { return c.has_value(); });
    if (complete || std::chrono::steady_clock::now() > deadline) return snap;
    std::this_thread::sleep_for(kStepInterval);
  }
}

void DesyncMonitor::verify_step() {
  std::vector<CollectiveSignature> mine;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (verified_ >= recorded_) return;
    auto it = batches_.lower_bound(verified_ / kBatch);
    if (it == batches_.end()) return;
    verified_ = std::max(verified_, it->first * kBatch);  // batches this rank dropped cannot be compared
    mine = it->second;
  }
  int64_t batch = verified_ / kBatch;
  int64_t upto = mine.back().seq + 1;  // compared: [verified_, upto)
  for (int r = 0; r < size_ && upto > verified_; ++r) {
    if (r == rank_) continue;
    if (!store_->check({batch_key(r, batch)})) {
      // Not there yet, or deleted because the peer went far ahead (then it cannot be compared).
      bool gone = store_->check({progress_key(r)}) &&
                  std::stoll(store_->get_string(progress_key(r))) >= (batch + kKeptBatches) * kBatch;
      if (!gone) upto = verified_;
      continue;
    }
    std::vector<CollectiveSignature> theirs = decode_signatures(store_->get(batch_key(r, batch)));
    int64_t their_end = theirs.empty() ? verified_ : theirs.back().seq + 1;
    for (int64_t seq = verified_; seq < std::min(upto, their_end); ++seq) {
      const CollectiveSignature& a = mine[static_cast<size_t>(seq - batch * kBatch)];
      const CollectiveSignature& b = theirs[static_cast<size_t>(seq - batch * kBatch)];
      if (a != b) {
        Snapshot snap = settled_snapshot(seq, a);
        reported_ = true;
        on_mismatch_(describe(snap, seq, a));
        return;
      }
    }
    upto = std::min(upto, their_end);
  }
  verified_ = std::max(verified_, upto);
}

std::string DesyncMonitor::diagnose(int64_t seq) {
  std::optional<CollectiveSignature> mine;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = batches_.find(seq / kBatch);
    if (it != batches_.end())
      for (const CollectiveSignature& sig : it->second)
        if (sig.seq == seq) mine = sig;
  }
  if (!mine) return fmt::format("which ranks called what at collective #{} is unknown (no longer recorded)", seq);
  if (auto why = silence()) return fmt::format("which ranks called what at {} is unknown: {}", mine->str(), *why);
  // The peers publish every step: give a peer that just entered #seq time to say so.
  std::this_thread::sleep_for(3 * kStepInterval);
  const auto asked = std::chrono::steady_clock::now();
  try {
    Snapshot snap = collect(*answering_, size_, seq);
    snap.calls[rank_] = *mine;
    return describe(snap, seq, *mine);
  } catch (const std::exception& e) {
    if (!gave_up(asked, kStoreAnswerTime))
      return fmt::format("which ranks called what at {} is unknown: {}", mine->str(),
                         of_store_host(*answering_, fmt::format("does not answer ({}); it may have exited", e.what())));
  }
  return fmt::format("which ranks called what at {} is unknown: {}", mine->str(), silent_store(no_answer(*answering_)));
}

void DesyncMonitor::store_is_silent(std::chrono::steady_clock::duration silence) {
  silent_store(of_store_host(
      *answering_, fmt::format("has not answered for {:.1f} s", std::chrono::duration<double>(silence).count())));
}

std::string DesyncMonitor::silent_store(const std::string& message) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!silence_) silence_ = message;
  return *silence_;
}

std::optional<std::string> DesyncMonitor::silence() {
  std::lock_guard<std::mutex> lock(mutex_);
  return silence_;
}

void DesyncMonitor::finished(int64_t seq) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (seq + 1 > finished_) waiting_since_ = std::chrono::steady_clock::now();
  finished_ = std::max(finished_, seq + 1);
}

void DesyncMonitor::on_stall(std::chrono::milliseconds after, std::function<void(const std::string& message)> handler) {
  std::lock_guard<std::mutex> lock(mutex_);
  stall_handlers_.push_back({after, std::move(handler)});
}

void DesyncMonitor::check_stall() {
  int64_t seq;
  std::chrono::steady_clock::duration waited;
  std::vector<size_t> due;
  std::optional<CollectiveSignature> waiting_on;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    seq = finished_;
    if (seq >= recorded_) return;
    waited = std::chrono::steady_clock::now() - waiting_since_;
    for (size_t i = 0; i < stall_handlers_.size(); ++i)
      if (stall_handlers_[i].called_seq != seq && waited >= stall_handlers_[i].after) due.push_back(i);
    if (due.empty()) return;
    auto it = batches_.find(seq / kBatch);
    if (it != batches_.end())
      for (const CollectiveSignature& sig : it->second)
        if (sig.seq == seq) waiting_on = sig;
  }
  if (!waiting_on) return;
  std::vector<int> absent;
  for (int r = 0; r < size_; ++r)
    if (r != rank_ && (!store_->check({progress_key(r)}) || std::stoll(store_->get_string(progress_key(r))) <= seq))
      absent.push_back(r);
  // Marked only now: a read that gave up is tried again at the next step.
  std::vector<std::function<void(const std::string&)>> handlers;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i : due) {
      stall_handlers_[i].called_seq = seq;
      handlers.push_back(stall_handlers_[i].handler);
    }
  }
  if (absent.empty()) return;  // all entered it: a stopped or dead peer is the heartbeat's to name
  std::string who = absent.size() == 1 ? fmt::format("rank {}, which has", absent[0])
                                       : fmt::format("ranks [{}], which have", fmt::join(absent, ", "));
  const std::string message =
      fmt::format("waiting {:.1f} s in {} for {} not entered it (an infinite loop, a deadlock, or long work "
                  "outside collectives)",
                  std::chrono::duration<double>(waited).count(), waiting_on->str(), who);
  for (const auto& handler : handlers) handler(message);
}

std::string DesyncMonitor::own_flight_line() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<CollectiveSignature> last;
  for (const auto& [batch, sigs] : batches_)
    for (const CollectiveSignature& sig : sigs)
      if (sig.seq >= recorded_ - kFlightRecords) last.push_back(sig);
  return flight_line(rank_, recorded_, finished_, last);
}

std::string DesyncMonitor::flight_record(bool ask_store) {
  std::string header = "flight recorder (the last collectives each rank started; a peer's as it last published them):";
  std::string own = own_flight_line();
  if (!ask_store) return fmt::format("{}\n  {}\n  other ranks: unknown: the store does not answer", header, own);
  if (auto why = silence()) return fmt::format("{}\n  {}\n  other ranks: unknown: {}", header, own, *why);
  std::string lines = header;
  const auto asked = std::chrono::steady_clock::now();
  for (int r = 0; r < size_; ++r) {
    std::string line = own;
    if (r != rank_) {
      try {
        line = peer_flight_line(*answering_, r);
      } catch (const std::exception& e) {
        if (gave_up(asked, kStoreAnswerTime)) {
          return fmt::format("{}\n  {}\n  other ranks: unknown: {}", header, own, silent_store(no_answer(*answering_)));
        }
        line = fmt::format("rank {}: unknown: {}", r,
                           of_store_host(*answering_, fmt::format("does not answer ({})", e.what())));
      }
    }
    lines += "\n  " + line;
  }
  return lines;
}

}  // namespace brisk::dist
