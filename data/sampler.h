#pragma once
// Samplers choose which dataset indices an epoch loads, and in which order
// (torch.utils.data.Sampler). The DataLoader calls set_epoch() before every epoch and then
// indices() once, so a sampler can give each epoch its own order, or, for distributed
// training, each process its own share of it.
#include <cstdint>
#include <vector>

namespace brisk::data {

class Sampler {
 public:
  virtual ~Sampler() = default;

  // The indices of the current epoch, in loading order; size() of them.
  virtual std::vector<int64_t> indices() const = 0;
  // How many indices an epoch has (len(sampler)).
  virtual int64_t size() const = 0;

  // Selects the epoch whose indices indices() returns.
  virtual void set_epoch(int64_t epoch) { epoch_ = epoch; }
  int64_t epoch() const { return epoch_; }

 protected:
  int64_t epoch_ = 0;
};

}  // namespace brisk::data
