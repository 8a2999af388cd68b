#include "distributed/zero2/parameter_shards.h"

#include <deque>
#include <numeric>

#include "autograd/grad_mode.h"
#include "distributed/ddp/bucket_assignment.h"
#include "tensor/error.h"
#include "tensor/native/ops.h"

namespace brisk::dist {

namespace {

int64_t mib_to_bytes(double mib) { return static_cast<int64_t>(mib * 1024.0 * 1024.0); }

TensorOptions options_of(const Tensor& t) { return TensorOptions(t.dtype()).device(t.device()); }

}  // namespace

ParameterShards::ParameterShards(std::vector<Tensor> params, std::vector<std::string> names,
                                 std::shared_ptr<ProcessGroup> group, const Zero2Options& options)
    : params_(std::move(params)), names_(std::move(names)), group_(std::move(group)) {
  BRISK_CHECK(names_.size() == params_.size(), "ParameterShards: {} names for {} parameters", names_.size(),
              params_.size());
  BRISK_CHECK(!params_.empty(), "ParameterShards on rank {}: no parameter to shard", group_->rank());
  std::vector<BucketEntry> entries;
  for (const Tensor& p : params_) entries.push_back({p.numel(), p.dtype(), p.device()});
  std::vector<size_t> reverse(params_.size());
  std::iota(reverse.rbegin(), reverse.rend(), size_t{0});
  const auto assignment = compute_bucket_assignment(
      entries, reverse, {mib_to_bytes(options.first_bucket_cap_mb()), mib_to_bytes(options.bucket_cap_mb())});
  places_.resize(params_.size());
  for (const std::vector<size_t>& indices : assignment) {
    std::vector<Shape> shapes;
    for (size_t slot = 0; slot < indices.size(); ++slot) {
      shapes.push_back(params_[indices[slot]].sizes());
      places_[indices[slot]] = Place{buckets_.size(), slot};
    }
    buckets_.push_back(Bucket{indices, FlatShardLayout(std::move(shapes), group_->size())});
  }
  for (size_t i = 0; i < params_.size(); ++i) {
    const Tensor& p = params_[i];
    const RowRange range = rows(i);
    Tensor shard = native::narrow(p.dim() == 0 ? native::view(p, {1}) : p, 0, range.begin, range.rows);
    shard.requires_grad_(true);
    shards_.push_back(shard);
  }
}

RowRange ParameterShards::rows(size_t i) const {
  const Place& at = place(i);
  return buckets_[at.bucket].layout.rows(at.slot, group_->rank());
}

void ParameterShards::all_gather_parameters() const {
  NoGradGuard no_grad;
  struct InFlight {
    const Bucket* bucket;
    Tensor mine, gathered;
    std::shared_ptr<Work> work;
  };
  std::deque<InFlight> in_flight;
  auto unpack_front = [&] {
    InFlight& done = in_flight.front();
    done.work->wait();
    std::vector<Tensor> full;
    for (size_t index : done.bucket->params) full.push_back(params_[index]);
    done.bucket->layout.unpack(done.gathered, full);
    in_flight.pop_front();
  };
  for (const Bucket& bucket : buckets_) {
    const TensorOptions options = options_of(params_[bucket.params.front()]);
    // Zeros: the padding rows travel too.
    Tensor mine = native::zeros({bucket.layout.shard_numel()}, options);
    std::vector<Tensor> views = bucket.layout.shard_views(mine, group_->rank());
    for (size_t slot = 0; slot < views.size(); ++slot) native::copy_(views[slot], shards_[bucket.params[slot]]);
    Tensor gathered = native::empty({bucket.layout.gathered_numel()}, options);
    std::vector<Tensor> chunks = bucket.layout.rank_chunks(gathered);
    if (in_flight.size() == 2) unpack_front();
    in_flight.push_back({&bucket, mine, gathered, group_->all_gather(chunks, mine)});
  }
  while (!in_flight.empty()) unpack_front();
}

}  // namespace brisk::dist
