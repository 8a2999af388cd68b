#pragma once
// CollectiveSignature: what one rank called as collective #seq of a group (op, numel, dtype,
// root, reduce op), the unit of desync detection for every backend. Each rank computes it
// locally at no cost; its fingerprint() goes into the transport's message tags (Gloo), so
// mismatched calls never exchange data, and DesyncMonitor compares signatures across ranks
// off the hot path.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "distributed/reduce_op.h"
#include "tensor/dtype.h"

namespace brisk::dist {

enum class CollectiveKind : int64_t {
  kBroadcast = 1,
  kAllReduce,
  kReduce,
  kAllGather,
  kGather,
  kScatter,
  kReduceScatter,
  kAllToAll,
  kBarrier,
};

const char* collective_name(CollectiveKind kind);

struct CollectiveSignature {
  static constexpr int64_t kUnused = -1;  // a field the op does not have

  CollectiveKind kind = CollectiveKind::kBarrier;
  int64_t seq = 0;
  int64_t numel = kUnused;
  int64_t dtype = kUnused;
  int64_t root = kUnused;
  int64_t reduce_op = kUnused;

  // The signature of a call (seq is assigned when it is queued).
  static CollectiveSignature of(CollectiveKind kind, int64_t numel = kUnused, std::optional<DType> dtype = {},
                                int64_t root = kUnused, std::optional<ReduceOp> reduce_op = {}) {
    return {kind,  0,
            numel, dtype ? static_cast<int64_t>(*dtype) : kUnused,
            root,  reduce_op ? static_cast<int64_t>(*reduce_op) : kUnused};
  }

  bool operator==(const CollectiveSignature& o) const {
    return kind == o.kind && seq == o.seq && numel == o.numel && dtype == o.dtype && root == o.root &&
           reduce_op == o.reduce_op;
  }
  bool operator!=(const CollectiveSignature& o) const { return !(*this == o); }

  // "all_reduce #3(numel 10, float32, SUM)".
  std::string str() const;
  // A 32-bit hash of every field: equal on ranks that made the same call, different (but for
  // a 2^-32 chance) otherwise, and different from one seq to the next.
  uint32_t fingerprint() const;
};

// A fixed-size binary form, for the store.
void append_encoded(std::vector<uint8_t>& out, const CollectiveSignature& sig);
// Every signature in `bytes` (as written by append_encoded); malformed trailing bytes are ignored.
std::vector<CollectiveSignature> decode_signatures(const std::vector<uint8_t>& bytes);

}  // namespace brisk::dist
