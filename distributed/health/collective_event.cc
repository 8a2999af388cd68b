#include "distributed/health/collective_event.h"

#include <fmt/format.h>

namespace brisk::dist {

std::string collective_event_name(const char* backend, const CollectiveSignature& sig) {
  return fmt::format("{}:{}", backend, collective_name(sig.kind));
}

profiler::Args collective_event_args(const CollectiveSignature& sig, const std::string& group, int group_size) {
  bool sized = sig.numel != CollectiveSignature::kUnused && sig.dtype != CollectiveSignature::kUnused;
  auto dtype = static_cast<DType>(sig.dtype);
  return {
      {"Collective name", collective_name(sig.kind)},
      {"Sequence number", std::to_string(sig.seq)},
      {"In msg nelems", sig.numel == CollectiveSignature::kUnused ? "" : std::to_string(sig.numel)},
      {"dtype", sig.dtype == CollectiveSignature::kUnused ? "" : dtype_name(dtype)},
      {"bytes", sized ? std::to_string(sig.numel * static_cast<int64_t>(element_size(dtype))) : ""},
      {"Process Group Name", group},
      {"Group size", std::to_string(group_size)},
  };
}

}  // namespace brisk::dist
