#include "distributed/fsdp/sharded_unit.h"

#include <fmt/format.h>

#include "tensor/error.h"
#include "tensor/native/ops.h"

namespace brisk::dist {

namespace {

std::vector<Shape> shapes_of(const std::vector<Tensor>& tensors) {
  std::vector<Shape> shapes;
  for (const Tensor& t : tensors) shapes.push_back(t.sizes());
  return shapes;
}

DType common_dtype(const std::vector<std::string>& names, const std::vector<Tensor>& params) {
  if (params.empty()) return kFloat32;
  for (size_t i = 0; i < params.size(); ++i) {
    BRISK_CHECK(params[i].is_floating_point() && params[i].is_leaf(),
                "fully_shard: parameter {} must be a floating-point leaf, got {}", names[i], params[i].describe());
    BRISK_CHECK(params[i].dtype() == params[0].dtype(),
                "fully_shard: the parameters of one unit share a dtype, but {} is {} and {} is {}", names[0],
                params[0].dtype(), names[i], params[i].dtype());
  }
  return params[0].dtype();
}

}  // namespace

template <typename F>
decltype(auto) ShardedUnit::collective(const char* op, F&& collective) {
  try {
    return std::forward<F>(collective)();
  } catch (const std::exception& e) {
    throw Error(fmt::format("fully_shard: the {} of unit {} failed on rank {} (every rank must run the unit's "
                            "forward and backward the same number of times, in the same order): {}",
                            op, name_, group_->rank(), e.what()));
  }
}

ShardedUnit::ShardedUnit(std::vector<std::string> param_names, std::vector<Tensor> params,
                         std::shared_ptr<ProcessGroup> group, const MixedPrecisionPolicy& mp_policy,
                         bool cpu_offload)
    : param_names_(std::move(param_names)),
      params_(std::move(params)),
      group_(std::move(group)),
      layout_(shapes_of(params_), group_->size()),
      shard_dtype_(common_dtype(param_names_, params_)),
      compute_dtype_(mp_policy.param_dtype.value_or(shard_dtype_)),
      reduce_dtype_(mp_policy.reduce_dtype.value_or(compute_dtype_)),
      shard_device_(cpu_offload ? kCPU : group_->device()),
      stashed_grads_(params_.size()),
      accumulated_grads_(params_.size()) {
  const Device device = group_->device();
  const int rank = group_->rank();
  // This rank's rows of the values the parameters hold now, through the one packing rule.
  Tensor gathered = native::empty({layout_.gathered_numel()}, TensorOptions(shard_dtype_).device(device));
  layout_.pack(params_, gathered);
  shard_buffer_ = native::empty({layout_.shard_numel()}, TensorOptions(shard_dtype_).device(shard_device_));
  native::copy_(shard_buffer_, layout_.rank_chunks(gathered)[rank]);
  shards_ = layout_.shard_views(shard_buffer_, rank);

  int64_t full_numel = 0;
  for (const Tensor& p : params_) full_numel += p.numel();
  full_buffer_ = native::empty({full_numel}, TensorOptions(compute_dtype_).device(device));
  int64_t offset = 0;
  for (const Tensor& p : params_) {
    full_.push_back(full_buffer_.narrow(0, offset, p.numel()).view(p.sizes()));
    offset += p.numel();
  }
  full_buffer_.storage()->resize(0);
  for (size_t i = 0; i < params_.size(); ++i) {
    params_[i].set_data(shards_[i]);
    params_[i].set_grad(Tensor());
  }
}

size_t ShardedUnit::unsharded_bytes() const { return full_buffer_.storage()->nbytes(); }

void ShardedUnit::start_unshard() {
  if (unsharded_ || gather_work_ || params_.empty()) return;
  const TensorOptions options = TensorOptions(compute_dtype_).device(group_->device());
  gather_input_ = shard_buffer_;
  if (compute_dtype_ != shard_dtype_ || shard_device_ != group_->device()) {
    gather_input_ = native::empty({layout_.shard_numel()}, options);
    native::copy_(gather_input_, shard_buffer_);
  }
  gathered_ = native::empty({layout_.gathered_numel()}, options);
  std::vector<Tensor> outputs = layout_.rank_chunks(gathered_);
  gather_issued_ = CollectiveSpan::Clock::now();
  gather_work_ = collective("all_gather", [&] { return group_->all_gather(outputs, gather_input_); });
}

void ShardedUnit::wait_recorded(const char* op, Work& work, CollectiveSpan::Clock::time_point issued) {
  const auto start = CollectiveSpan::Clock::now();
  collective(op, [&] { work.wait(); });
  const auto end = CollectiveSpan::Clock::now();
  collective_spans_.push_back({issued, work.completed_at().value_or(end), end - start});
}

void ShardedUnit::unshard() {
  if (unsharded_) return;
  if (!params_.empty()) {
    start_unshard();
    wait_recorded("all_gather", *gather_work_, gather_issued_);
    full_buffer_.storage()->resize(full_buffer_.nbytes());
    layout_.unpack(gathered_, full_);
    gather_work_.reset();
    gather_input_ = Tensor();
    gathered_ = Tensor();
    for (size_t i = 0; i < params_.size(); ++i) params_[i].set_data(full_[i]);
  }
  unsharded_ = true;
}

void ShardedUnit::reshard() {
  if (!unsharded_) return;
  for (size_t i = 0; i < params_.size(); ++i) params_[i].set_data(shards_[i]);
  full_buffer_.storage()->resize(0);
  unsharded_ = false;
}

void ShardedUnit::discard_prefetch() {
  if (!gather_work_) return;
  wait_recorded("all_gather", *gather_work_, gather_issued_);
  gather_work_.reset();
  gather_input_ = Tensor();
  gathered_ = Tensor();
}

void ShardedUnit::stash_grads() {
  for (size_t i = 0; i < params_.size(); ++i) {
    stashed_grads_[i] = params_[i].grad();
    params_[i].set_grad(Tensor());
  }
}

void ShardedUnit::start_reduce_grads() {
  if (params_.empty() || grad_shard_buffer_.defined()) return;
  const TensorOptions options = TensorOptions(reduce_dtype_).device(group_->device());
  accumulate_unsharded_grads();
  std::vector<Tensor> grads;
  for (size_t i = 0; i < params_.size(); ++i) {
    Tensor grad = std::move(accumulated_grads_[i]);
    grads.push_back(grad.defined() ? grad : native::zeros(layout_.shape(i), options));
  }
  reduce_input_ = native::empty({layout_.gathered_numel()}, options);
  layout_.pack(grads, reduce_input_);
  grad_shard_buffer_ = native::empty({layout_.shard_numel()}, options);
  reduce_issued_ = CollectiveSpan::Clock::now();
  reduce_work_ = collective("reduce_scatter", [&] {
    return group_->reduce_scatter(grad_shard_buffer_, layout_.rank_chunks(reduce_input_), ReduceOp::AVG);
  });
}

void ShardedUnit::accumulate_unsharded_grads() {
  for (size_t i = 0; i < params_.size(); ++i) {
    Tensor grad = params_[i].grad();
    if (!grad.defined()) continue;
    BRISK_CHECK(grad.sizes() == layout_.shape(i),
                "fully_shard: unit {} (rank {}): the gradient of {} is {} but the full parameter is {}", name_,
                group_->rank(), param_names_[i], grad.sizes(), layout_.shape(i));
    params_[i].set_grad(Tensor());
    if (grad.dtype() != reduce_dtype_) {
      Tensor converted = native::empty(grad.sizes(), TensorOptions(reduce_dtype_).device(group_->device()));
      grad = native::copy_(converted, grad);
    }
    Tensor& sum = accumulated_grads_[i];
    if (sum.defined()) {
      native::binary_(BinaryOp::Add, sum, grad, OpParams{1.0});  // a: alpha
    } else {
      sum = grad;
    }
  }
}

void ShardedUnit::wait_reduce() {
  if (!reduce_work_) return;
  wait_recorded("reduce_scatter", *reduce_work_, reduce_issued_);
  reduce_work_.reset();
  reduce_input_ = Tensor();
}

void ShardedUnit::finish_grads() {
  if (!grad_shard_buffer_.defined()) {
    for (size_t i = 0; i < params_.size(); ++i) {
      if (stashed_grads_[i].defined()) params_[i].set_grad(std::move(stashed_grads_[i]));
    }
    return;
  }
  wait_reduce();
  Tensor shard = grad_shard_buffer_;
  grad_shard_buffer_ = Tensor();
  if (shard.dtype() != shard_dtype_ || shard_device_ != group_->device()) {
    Tensor converted = native::empty({layout_.shard_numel()}, TensorOptions(shard_dtype_).device(shard_device_));
    shard = native::copy_(converted, shard);
  }
  std::vector<Tensor> grad_shards = layout_.shard_views(shard, group_->rank());
  for (size_t i = 0; i < params_.size(); ++i) {
    Tensor& stashed = stashed_grads_[i];
    if (stashed.defined()) {
      native::binary_(BinaryOp::Add, stashed, grad_shards[i], OpParams{1.0});  // a: alpha
      params_[i].set_grad(stashed);
    } else {
      params_[i].set_grad(grad_shards[i]);
    }
    stashed = Tensor();
  }
}

}  // namespace brisk::dist
