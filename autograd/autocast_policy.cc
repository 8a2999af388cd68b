#include "autograd/autocast_policy.h"

namespace brisk::autograd {

CastPolicy autocast_policy(AutocastOp op, DeviceType device) {
  const bool cpu = device == DeviceType::CPU;
  switch (op) {
#define BRISK_AUTOCAST_CASE(name, cpu_policy, cuda_policy) \
  case AutocastOp::name: return cpu ? CastPolicy::cpu_policy : CastPolicy::cuda_policy;
    BRISK_AUTOCAST_OPS(BRISK_AUTOCAST_CASE)
#undef BRISK_AUTOCAST_CASE
  }
  return CastPolicy::None;
}

const char* autocast_op_name(AutocastOp op) {
  switch (op) {
#define BRISK_AUTOCAST_NAME(name, cpu_policy, cuda_policy) \
  case AutocastOp::name: return #name;
    BRISK_AUTOCAST_OPS(BRISK_AUTOCAST_NAME)
#undef BRISK_AUTOCAST_NAME
  }
  return "?";
}

}  // namespace brisk::autograd
