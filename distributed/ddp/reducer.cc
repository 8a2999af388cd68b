#include "distributed/ddp/reducer.h"

#include <algorithm>
#include <numeric>

#include "autograd/engine.h"
#include "distributed/ddp/bucket_assignment.h"
#include "distributed/ddp/used_parameters.h"
#include "distributed/host_value_collectives.h"
#include "profiler/record.h"
#include "tensor/native/ops.h"

namespace brisk::dist {

namespace {

int64_t mib_to_bytes(double mib) { return static_cast<int64_t>(mib * 1024.0 * 1024.0); }

// The slot of `param` in a flat bucket `flat`, from element `offset`: with the parameter's
// own strides when it is dense (as PyTorch's reducer), so that a channels_last parameter's
// gradient is copied into its slot without a conversion and, with gradient_as_bucket_view,
// .grad keeps the parameter's layout; else contiguous.
Tensor bucket_view(const Tensor& flat, int64_t offset, const Tensor& param) {
  if (is_non_overlapping_and_dense(param.sizes(), param.strides())) {
    return native::as_strided(flat, param.sizes(), param.strides(), flat.offset() + offset);
  }
  return native::view(native::narrow(flat, 0, offset, param.numel()), param.sizes());
}

}  // namespace

Reducer::Reducer(std::vector<Tensor> parameters, std::vector<std::string> names, std::shared_ptr<ProcessGroup> group,
                 const DistributedDataParallelOptions& options)
    : parameters_(std::move(parameters)), names_(std::move(names)), group_(std::move(group)), options_(options) {
  BRISK_CHECK(names_.size() == parameters_.size(), "Reducer: {} names for {} parameters", names_.size(),
              parameters_.size());
  std::vector<size_t> reverse(parameters_.size());
  std::iota(reverse.rbegin(), reverse.rend(), size_t{0});
  initialize_buckets(assign(reverse));
  ready_.assign(parameters_.size(), false);
  local_used_.assign(parameters_.size(), 0);
  for (size_t i = 0; i < parameters_.size(); ++i) {
    hook_handles_.push_back(
        parameters_[i].register_post_accumulate_grad_hook([this, i](Tensor&) { autograd_hook(i); }));
  }
}

Reducer::~Reducer() {
  for (size_t i = 0; i < parameters_.size(); ++i) parameters_[i].remove_hook(hook_handles_[i]);
}

void Reducer::register_comm_hook(std::shared_ptr<CommHook> hook) {
  BRISK_CHECK(hook != nullptr, "DistributedDataParallel::register_comm_hook: the hook is null");
  BRISK_CHECK(!has_synced_, "DistributedDataParallel::register_comm_hook: register the hook before the first backward");
  comm_hook_ = std::move(hook);
}

std::vector<std::vector<size_t>> Reducer::assign(const std::vector<size_t>& order) const {
  std::vector<BucketEntry> entries;
  for (const Tensor& p : parameters_) entries.push_back({p.numel(), p.dtype(), p.device()});
  return compute_bucket_assignment(
      entries, order, {mib_to_bytes(options_.first_bucket_cap_mb()), mib_to_bytes(options_.bucket_cap_mb())});
}

void Reducer::initialize_buckets(const std::vector<std::vector<size_t>>& assignment) {
  buckets_.clear();
  locators_.assign(parameters_.size(), Locator{});
  for (const auto& variables : assignment) {
    Bucket bucket;
    bucket.variables = variables;
    int64_t numel = 0;
    for (size_t index : variables) {
      bucket.offsets.push_back(numel);
      numel += parameters_[index].numel();
    }
    const Tensor& first = parameters_[variables.front()];
    bucket.buffer = native::zeros({numel}, first.options());
    for (size_t slot = 0; slot < variables.size(); ++slot) {
      const Tensor& p = parameters_[variables[slot]];
      bucket.views.push_back(bucket_view(bucket.buffer, bucket.offsets[slot], p));
      locators_[variables[slot]] = Locator{buckets_.size(), slot};
    }
    bucket.pending = variables.size();
    buckets_.push_back(std::move(bucket));
  }
}

std::vector<std::vector<size_t>> Reducer::bucket_indices() const {
  std::vector<std::vector<size_t>> out;
  for (const Bucket& bucket : buckets_) out.push_back(bucket.variables);
  return out;
}

void Reducer::prepare_for_backward(const std::vector<Tensor>& outputs) {
  expect_hooks_ = true;
  first_hook_seen_ = false;
  unused_.clear();
  if (!options_.find_unused_parameters()) return;
  auto reached = reachable_leaves(outputs);
  for (size_t i = 0; i < parameters_.size(); ++i) {
    if (reached.count(parameters_[i].impl()) == 0) unused_.push_back(i);
  }
}

void Reducer::autograd_hook(size_t index) {
  BRISK_CHECK(expect_hooks_ || local_backward_allowed_,
              "DistributedDataParallel: a gradient reached parameter '{}' but DDP's forward did not run in this "
              "iteration (rank {}): call the DDP module (ddp->forward(x) or ddp(x)), not the module it wraps, so that "
              "backward averages the gradients across ranks; to accumulate gradients without synchronizing, call it "
              "under ddp->no_sync(). Each synchronizing backward needs a forward of its own",
              names_[index], group_->rank());
  local_used_[index] = 1;
  if (!expect_hooks_) return;
  if (!first_hook_seen_) {
    first_hook_seen_ = true;
    timeline_.first_gradient = ReducerTimeline::Clock::now();
    timeline_.bucket_launched.assign(buckets_.size(), {});
    autograd::Engine::queue_callback([this] { finalize_backward(); });
    for (size_t unused : unused_) mark_ready(unused);
  }
  mark_ready(index);
}

void Reducer::mark_ready(size_t index, bool contribute) {
  BRISK_CHECK(!ready_[index],
              "DistributedDataParallel: parameter {} ({}) was marked ready twice in one backward; with "
              "find_unused_parameters the graph walked after forward must contain every parameter backward reaches",
              index, names_[index]);
  ready_[index] = true;
  current_order_.push_back(index);
  const Locator& at = locators_[index];
  Bucket& bucket = buckets_[at.bucket];
  Tensor& view = bucket.views[at.slot];
  const Tensor& grad = parameters_[index].grad();
  if (grad.defined() && contribute) {
    BRISK_CHECK(grad.sizes() == view.sizes(),
                "DistributedDataParallel: gradient of {} has shape {} but the parameter {}", names_[index],
                grad.sizes(), view.sizes());
    if (grad.is_same(view)) {
      // gradient_as_bucket_view and no gradient this backward (an unused parameter): the
      // all-reduce overwrites the buffer, but a parameter unused on every rank keeps its .grad.
      parameters_[index].mutable_grad() = native::clone(view);
    } else {
      native::copy_(view, grad);
      // As PyTorch's reducer: .grad becomes the bucket view now, so that autograd's gradient
      // is freed here rather than held by .grad until the end of backward (4 bytes a
      // parameter more at the peak).
      if (options_.gradient_as_bucket_view()) parameters_[index].mutable_grad() = view;
    }
  } else {
    // A kept bucket view must not see these zeros.
    if (grad.defined() && grad.is_same(view)) parameters_[index].mutable_grad() = native::clone(view);
    native::fill_(view, 0);
  }
  if (--bucket.pending > 0) return;
  // Buckets are reduced in order, so that every rank issues the same collectives.
  while (next_bucket_ < buckets_.size() && buckets_[next_bucket_].pending == 0) {
    Bucket& ready = buckets_[next_bucket_];
    if (timeline_.bucket_launched.size() == buckets_.size()) {
      timeline_.bucket_launched[next_bucket_] = ReducerTimeline::Clock::now();
    }
    Tensor buffer = ready.buffer;
    if (comm_hook_) {
      std::vector<Tensor> params;
      for (size_t i : ready.variables) params.push_back(parameters_[i]);
      GradBucket grad_bucket(next_bucket_, next_bucket_ + 1 == buckets_.size(), buffer, std::move(params), ready.views);
      ready.reduction = comm_hook_->run(grad_bucket);
    } else if (divisor_ == 0) {
      ready.reduction = group_->all_reduce(buffer, ReduceOp::AVG)->then([buffer] { return buffer; });
    } else {
      ready.reduction = group_->all_reduce(buffer, ReduceOp::SUM)->then([buffer, divisor = divisor_]() mutable {
        native::binary_(BinaryOp::Div, buffer, Scalar(static_cast<double>(divisor)));
        return buffer;
      });
    }
    ++next_bucket_;
  }
  if (next_bucket_ == buckets_.size() && options_.find_unused_parameters() && !local_used_work_) {
    // One copy to the group's device here and one back in finalize_backward: the hooks
    // record use on the host, never through a pointer into device memory.
    globally_used_ = native::from_vector<int32_t>(local_used_, {static_cast<int64_t>(local_used_.size())},
                                                  TensorOptions(kInt32).device(group_->device()));
    local_used_work_ = group_->all_reduce(globally_used_, ReduceOp::MAX);
  }
}

void Reducer::note_reduced(size_t index) {
  const Bucket& bucket = buckets_[index];
  auto reduced = bucket.reduction->completed_at().value_or(ReducerTimeline::Clock::now());
  timeline_.bucket_reduced.push_back(reduced);
  if (!profiler::is_enabled() || timeline_.bucket_launched.size() != buckets_.size()) return;
  auto ns = [](ReducerTimeline::Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  };
  profiler::record_interval(profiler::Category::Ddp, "DDP bucket all-reduce", ns(timeline_.bucket_launched[index]),
                            ns(reduced),
                            {{"bucket", std::to_string(index)},
                             {"parameters", std::to_string(bucket.variables.size())},
                             {"bytes", std::to_string(bucket.buffer.nbytes())},
                             {"comm hook", comm_hook_ ? comm_hook_->name() : "allreduce"}});
}

void Reducer::finalize_backward() {
  timeline_.backward_end = ReducerTimeline::Clock::now();
  if (options_.find_unused_parameters()) {
    // Reached by the graph walk but given no gradient (an output left out of the loss).
    for (size_t i = 0; i < parameters_.size(); ++i) {
      if (!ready_[i]) mark_ready(i);
    }
  }
  std::vector<std::string> missing;
  for (size_t i = 0; i < parameters_.size(); ++i) {
    if (!ready_[i]) missing.push_back(fmt::format("{} (index {})", names_[i], i));
  }
  if (!missing.empty()) {
    std::string rank = fmt::format("{}", group_->rank());
    reset_iteration();
    BRISK_FAIL("DistributedDataParallel: on rank {}, these parameters received no gradient in this backward: {}. Every "
               "parameter must take part in the loss in every iteration; if some do not, construct with "
               "DistributedDataParallelOptions().find_unused_parameters(true)",
               rank, fmt::join(missing, ", "));
  }
  copy_back_reduced();
}

void Reducer::shadow_backward() {
  timeline_.bucket_launched.clear();  // a joined rank has no backward for its buckets to hide behind
  local_used_.assign(parameters_.size(), 0);
  for (const Bucket& bucket : buckets_) {
    for (size_t index : bucket.variables) mark_ready(index, false);
  }
  copy_back_reduced();
}

void Reducer::copy_back_reduced() {
  std::vector<bool> globally_used(parameters_.size(), true);
  if (options_.find_unused_parameters()) {
    local_used_work_->wait();
    const std::vector<int32_t> used = globally_used_.to_vector<int32_t>();
    for (size_t i = 0; i < parameters_.size(); ++i) globally_used[i] = used[i] != 0;
  }
  timeline_.bucket_reduced.clear();  // this iteration's, a synchronized or a shadow backward's
  for (size_t b = 0; b < buckets_.size(); ++b) {
    Bucket& bucket = buckets_[b];
    bucket.reduction->wait();
    Tensor result = bucket.reduction->result();
    note_reduced(b);
    BRISK_CHECK(result.numel() == bucket.buffer.numel(),
                "DistributedDataParallel: comm hook {} returned {} elements for a bucket of {}", comm_hook_->name(),
                result.numel(), bucket.buffer.numel());
    for (size_t slot = 0; slot < bucket.variables.size(); ++slot) {
      size_t index = bucket.variables[slot];
      if (!globally_used[index]) continue;
      const Tensor& param = parameters_[index];
      Tensor reduced =
          result.is_same(bucket.buffer)
              ? bucket.views[slot]
              : bucket_view(result, bucket.offsets[slot], param);
      Tensor& grad = param.mutable_grad();
      if (options_.gradient_as_bucket_view()) {
        if (!reduced.is_same(bucket.views[slot])) native::copy_(bucket.views[slot], reduced);
        grad = bucket.views[slot];
        grad.bump_version();
      } else if (grad.defined()) {
        native::copy_(grad, reduced);
        grad.bump_version();
      } else {
        grad = native::to(native::clone(reduced), param.device(), param.dtype());
      }
    }
  }
  timeline_.reduced = ReducerTimeline::Clock::now();
  if (!has_synced_) ready_order_ = current_order_;
  has_synced_ = true;
  local_used_.assign(parameters_.size(), 0);
  local_backward_allowed_ = false;
  reset_iteration();
}

void Reducer::reset_iteration() {
  expect_hooks_ = false;
  first_hook_seen_ = false;
  unused_.clear();
  ready_.assign(parameters_.size(), false);
  current_order_.clear();
  next_bucket_ = 0;
  for (Bucket& bucket : buckets_) {
    bucket.pending = bucket.variables.size();
    bucket.reduction.reset();
  }
  local_used_work_.reset();
  globally_used_ = Tensor();
}

bool Reducer::rebuild_buckets() {
  if (!options_.rebuild_buckets() || has_rebuilt_ || !has_synced_) return false;
  has_rebuilt_ = true;
  BRISK_CHECK(ready_order_.size() == parameters_.size(), "Reducer: ready order lists {} of {} parameters",
              ready_order_.size(), parameters_.size());
  std::vector<int64_t> order(ready_order_.begin(), ready_order_.end());
  std::vector<size_t> rank0_order;
  for (int64_t index : broadcast_values(*group_, order, 0)) rank0_order.push_back(static_cast<size_t>(index));
  initialize_buckets(assign(rank0_order));
  return true;
}

}  // namespace brisk::dist
