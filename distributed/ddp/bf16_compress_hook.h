#pragma once
// BF16CompressHook: halves the bytes on the wire by all-reducing the bucket in bfloat16
// (torch's bf16_compress_hook): the gradients are rounded to bfloat16, divided by the world
// size, summed across ranks in bfloat16, and widened back into the bucket. They keep
// bfloat16's 8 significant bits.
#include <memory>
#include <string>

#include "distributed/ddp/comm_hook.h"

namespace brisk::dist {

class BF16CompressHook final : public CommHook {
 public:
  explicit BF16CompressHook(std::shared_ptr<ProcessGroup> group) : group_(std::move(group)) {}
  std::string name() const override { return "bf16_compress"; }
  std::shared_ptr<Work> run(GradBucket& bucket) override;

 private:
  std::shared_ptr<ProcessGroup> group_;
};

}  // namespace brisk::dist
