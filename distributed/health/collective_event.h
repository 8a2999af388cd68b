#pragma once
// A process group's collective as a profiler event (profiler/record.h), the same for every
// backend: named as PyTorch's profiler names them ("gloo:all_reduce", "nccl:broadcast"), with
// the op, sequence number, element count, dtype, bytes and the group in its args.
#include <string>

#include "distributed/health/collective_signature.h"
#include "profiler/record.h"

namespace brisk::dist {

std::string collective_event_name(const char* backend, const CollectiveSignature& sig);
profiler::Args collective_event_args(const CollectiveSignature& sig, const std::string& group, int group_size);

}  // namespace brisk::dist
