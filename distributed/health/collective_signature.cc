#include "distributed/health/collective_signature.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>

namespace brisk::dist {
namespace {

constexpr size_t kWords = 6;

}  // namespace

const char* collective_name(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kBroadcast: return "broadcast";
    case CollectiveKind::kAllReduce: return "all_reduce";
    case CollectiveKind::kReduce: return "reduce";
    case CollectiveKind::kAllGather: return "all_gather";
    case CollectiveKind::kGather: return "gather";
    case CollectiveKind::kScatter: return "scatter";
    case CollectiveKind::kReduceScatter: return "reduce_scatter";
    case CollectiveKind::kAllToAll: return "all_to_all";
    case CollectiveKind::kBarrier: return "barrier";
  }
  return "?";
}

std::string CollectiveSignature::str() const {
  std::vector<std::string> parts;
  if (numel != kUnused) parts.push_back(fmt::format("numel {}", numel));
  if (dtype != kUnused) parts.push_back(dtype_name(static_cast<DType>(dtype)));
  if (root != kUnused) parts.push_back(fmt::format("root {}", root));
  if (reduce_op != kUnused) parts.push_back(std::string(reduce_op_name(static_cast<ReduceOp>(reduce_op))));
  return fmt::format("{} #{}({})", collective_name(kind), seq, fmt::join(parts, ", "));
}

uint32_t CollectiveSignature::fingerprint() const {
  // FNV-1a over the fields, folded to 32 bits.
  uint64_t hash = 14695981039346656037ull;
  for (int64_t word : {static_cast<int64_t>(kind), seq, numel, dtype, root, reduce_op}) {
    for (int byte = 0; byte < 8; ++byte) {
      hash ^= static_cast<uint64_t>(word >> (8 * byte)) & 0xff;
      hash *= 1099511628211ull;
    }
  }
  return static_cast<uint32_t>(hash ^ (hash >> 32));
}

void append_encoded(std::vector<uint8_t>& out, const CollectiveSignature& sig) {
  int64_t words[kWords] = {static_cast<int64_t>(sig.kind), sig.seq, sig.numel, sig.dtype, sig.root, sig.reduce_op};
  size_t at = out.size();
  out.resize(at + sizeof(words));
  std::memcpy(out.data() + at, words, sizeof(words));
}

std::vector<CollectiveSignature> decode_signatures(const std::vector<uint8_t>& bytes) {
  std::vector<CollectiveSignature> sigs;
  int64_t words[kWords];
  for (size_t at = 0; at + sizeof(words) <= bytes.size(); at += sizeof(words)) {
    std::memcpy(words, bytes.data() + at, sizeof(words));
    sigs.push_back({static_cast<CollectiveKind>(words[0]), words[1], words[2], words[3], words[4], words[5]});
  }
  return sigs;
}

}  // namespace brisk::dist
