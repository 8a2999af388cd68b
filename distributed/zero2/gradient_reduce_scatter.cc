#include "distributed/zero2/gradient_reduce_scatter.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "profiler/record.h"
#include "tensor/error.h"
#include "tensor/native/ops.h"

namespace brisk::dist {

namespace {

int64_t nanoseconds(ReducerTimeline::Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

// Copies `grad` (shaped like tensor `slot` of `layout`) into the rows every rank receives of it
// in a gathered buffer: FlatShardLayout::pack for one tensor of the bucket.
void pack_one(const FlatShardLayout& layout, size_t slot, const Tensor& grad, const Tensor& gathered) {
  const Tensor rows_of = grad.dim() == 0 ? native::view(grad, {1}) : grad;
  for (int r = 0; r < layout.world_size(); ++r) {
    const RowRange range = layout.rows(slot, r);
    if (range.rows == 0) continue;
    Tensor dst = native::view(native::narrow(gathered, 0, r * layout.shard_numel() + layout.offset(slot),
                                             range.rows * layout.row_numel(slot)),
                              layout.shard_shape(slot, r));
    native::copy_(dst, native::narrow(rows_of, 0, range.begin, range.rows));
  }
}

}  // namespace

GradientReduceScatter::GradientReduceScatter(const ParameterShards& shards) : shards_(shards) {
  buckets_.resize(shards_.buckets().size());
  reset_iteration();
  for (size_t i = 0; i < shards_.params().size(); ++i) {
    hook_handles_.push_back(shards_.params()[i].register_post_accumulate_grad_hook([this, i](Tensor&) { hook(i); }));
  }
}

GradientReduceScatter::~GradientReduceScatter() {
  for (size_t i = 0; i < hook_handles_.size(); ++i) shards_.params()[i].remove_hook(hook_handles_[i]);
}

void GradientReduceScatter::prepare_for_backward() {
  expect_hooks_ = true;
  first_hook_seen_ = false;
}

int64_t GradientReduceScatter::held_bucket_numel() const {
  int64_t numel = 0;
  for (const Bucket& bucket : buckets_) numel += bucket.gathered.defined() ? bucket.gathered.numel() : 0;
  return numel;
}

void GradientReduceScatter::hook(size_t index) {
  const int rank = shards_.group()->rank();
  BRISK_CHECK(expect_hooks_ || local_backward_allowed_,
              "Zero2DataParallel: a gradient reached parameter '{}' but Zero2DataParallel's forward did not run in "
              "this iteration (rank {}): call the wrapper (model->forward(x)), not the module it wraps, so that "
              "backward reduce-scatters the gradients; to accumulate gradients without synchronizing, call it under "
              "model->no_sync(). Each synchronizing backward needs a forward of its own",
              shards_.name(index), rank);
  if (!expect_hooks_) return;
  BRISK_CHECK(!ready_[index],
              "Zero2DataParallel: parameter '{}' received a second gradient in one synchronizing backward (rank {}); "
              "its first was already handed to the reduce-scatter",
              shards_.name(index), rank);
  if (!first_hook_seen_) {
    first_hook_seen_ = true;
    timeline_ = {};
    timeline_.first_gradient = ReducerTimeline::Clock::now();
    timeline_.bucket_launched.assign(buckets_.size(), {});
    autograd::Engine::queue_callback([this] { finalize_backward(); });
  }
  ready_[index] = true;
  const ParameterShards::Place& at = shards_.place(index);
  const FlatShardLayout& layout = shards_.buckets()[at.bucket].layout;
  const Tensor& param = shards_.params()[index];
  Bucket& bucket = buckets_[at.bucket];
  NoGradGuard no_grad;
  if (!bucket.gathered.defined()) {
    release_reduced_buckets();
    // Zeros: the padding rows are reduced too.
    bucket.gathered = native::zeros({layout.gathered_numel()}, TensorOptions(param.dtype()).device(param.device()));
    bucket.gathered_bytes = bucket.gathered.nbytes();
  }
  Tensor& grad = param.mutable_grad();
  BRISK_CHECK(grad.defined() && grad.sizes() == param.sizes(),
              "Zero2DataParallel: the gradient of '{}' is {} but the parameter is {} (rank {})", shards_.name(index),
              grad.defined() ? grad.describe() : "undefined", param.describe(), rank);
  pack_one(layout, at.slot, grad, bucket.gathered);
  grad = Tensor();  // the bucket holds it now
  if (--bucket.pending == 0) launch_ready_buckets();
}

void GradientReduceScatter::release_reduced_buckets() {
  for (size_t b = 0; b < next_bucket_; ++b) {
    Bucket& bucket = buckets_[b];
    if (bucket.gathered.defined() && bucket.reduction->is_completed()) bucket.gathered = Tensor();
  }
}

// Launched buckets whose gradient buffers may be held at once.
constexpr size_t kBucketsInFlight = 2;

void GradientReduceScatter::limit_buckets_in_flight() {
  release_reduced_buckets();
  size_t held = 0;
  for (size_t b = 0; b < next_bucket_; ++b) held += buckets_[b].gathered.defined() ? 1 : 0;
  for (size_t b = 0; b < next_bucket_ && held >= kBucketsInFlight; ++b) {
    Bucket& bucket = buckets_[b];
    if (!bucket.gathered.defined()) continue;
    bucket.reduction->wait();
    bucket.gathered = Tensor();
    --held;
  }
}

void GradientReduceScatter::launch_ready_buckets() {
  const auto& layouts = shards_.buckets();
  while (next_bucket_ < buckets_.size() && buckets_[next_bucket_].pending == 0) {
    limit_buckets_in_flight();
    Bucket& bucket = buckets_[next_bucket_];
    const FlatShardLayout& layout = layouts[next_bucket_].layout;
    timeline_.bucket_launched[next_bucket_] = ReducerTimeline::Clock::now();
    bucket.shard =
        native::empty({layout.shard_numel()}, TensorOptions(bucket.gathered.dtype()).device(bucket.gathered.device()));
    bucket.reduction =
        shards_.group()->reduce_scatter(bucket.shard, layout.rank_chunks(bucket.gathered), ReduceOp::AVG);
    ++next_bucket_;
  }
}

void GradientReduceScatter::finalize_backward() {
  timeline_.backward_end = ReducerTimeline::Clock::now();
  std::vector<std::string> missing;
  for (size_t i = 0; i < ready_.size(); ++i) {
    if (!ready_[i]) missing.push_back(fmt::format("{} (index {})", shards_.name(i), i));
  }
  if (!missing.empty()) {
    const int rank = shards_.group()->rank();
    // Wait for what was launched, so that no collective still reads a buffer about to go.
    for (Bucket& bucket : buckets_) {
      if (bucket.reduction) bucket.reduction->wait();
    }
    reset_iteration();
    BRISK_FAIL("Zero2DataParallel: on rank {}, these parameters received no gradient in this backward: {}. Every "
               "trained parameter must take part in the loss in every synchronizing backward (freeze the others "
               "with requires_grad_(false) before wrapping)",
               rank, fmt::join(missing, ", "));
  }
  NoGradGuard no_grad;
  const int rank = shards_.group()->rank();
  timeline_.bucket_reduced.clear();
  for (size_t b = 0; b < buckets_.size(); ++b) {
    Bucket& bucket = buckets_[b];
    bucket.reduction->wait();
    timeline_.bucket_reduced.push_back(bucket.reduction->completed_at().value_or(ReducerTimeline::Clock::now()));
    const ParameterShards::Bucket& layout = shards_.buckets()[b];
    if (profiler::is_enabled()) {
      profiler::record_interval(profiler::Category::Ddp, "ZeRO-2 bucket reduce-scatter",
                                nanoseconds(timeline_.bucket_launched[b]), nanoseconds(timeline_.bucket_reduced[b]),
                                {{"bucket", std::to_string(b)},
                                 {"parameters", std::to_string(layout.params.size())},
                                 {"bytes", std::to_string(bucket.gathered_bytes)}});
    }
    bucket.gathered = Tensor();
    std::vector<Tensor> views = layout.layout.shard_views(bucket.shard, rank);
    for (size_t slot = 0; slot < views.size(); ++slot) {
      const Tensor& shard = shards_.shard(layout.params[slot]);
      Tensor& grad = shard.mutable_grad();
      if (grad.defined()) {
        native::binary_(BinaryOp::Add, grad, views[slot], OpParams{1.0});
        grad.bump_version();
      } else {
        grad = views[slot];
      }
    }
  }
  timeline_.reduced = ReducerTimeline::Clock::now();
  local_backward_allowed_ = false;
  reset_iteration();
}

void GradientReduceScatter::reset_iteration() {
  expect_hooks_ = false;
  first_hook_seen_ = false;
  next_bucket_ = 0;
  ready_.assign(shards_.params().size(), false);
  for (size_t b = 0; b < buckets_.size(); ++b) {
    buckets_[b] = Bucket{};
    buckets_[b].pending = shards_.buckets()[b].params.size();
  }
}

}  // namespace brisk::dist
