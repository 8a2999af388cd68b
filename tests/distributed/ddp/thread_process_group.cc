#include "tests/distributed/ddp/thread_process_group.h"

#include <exception>

#include "distributed/collective_checks.h"
#include "tensor/native/ops.h"

namespace brisk::dist::testing {

namespace {

class ThreadWork final : public Work {
 public:
  ThreadWork(std::shared_ptr<ThreadWorld> world, std::shared_ptr<ThreadWorld::Slot> slot, int64_t seq, std::string op)
      : world_(std::move(world)), slot_(std::move(slot)), seq_(seq), op_(std::move(op)) {}
  bool is_completed() override { return world_->completed(slot_); }
  bool is_success() override { return is_completed() && slot_->error.empty(); }
  void wait() override { world_->wait(slot_, seq_, op_); }

 private:
  std::shared_ptr<ThreadWorld> world_;
  std::shared_ptr<ThreadWorld::Slot> slot_;
  int64_t seq_;
  std::string op_;
};

// A send (complete at once) or a receive (complete when its message has come).
class PointToPointWork final : public Work {
 public:
  PointToPointWork(std::shared_ptr<ThreadWorld> world, std::shared_ptr<ThreadWorld::Delivery> delivery, int src,
                   int dst, int tag)
      : world_(std::move(world)), delivery_(std::move(delivery)), src_(src), dst_(dst), tag_(tag) {}
  bool is_completed() override { return !delivery_ || world_->completed(delivery_); }
  bool is_success() override { return is_completed() && (!delivery_ || delivery_->error.empty()); }
  void wait() override {
    if (delivery_) world_->wait(delivery_, src_, dst_, tag_);
  }

 private:
  std::shared_ptr<ThreadWorld> world_;
  std::shared_ptr<ThreadWorld::Delivery> delivery_;  // null for a send
  int src_, dst_, tag_;
};

// The backends' argument checks; every dtype, as the reductions run on the host with native ops.
constexpr DTypeSet kAllDtypes{kFloat32, kFloat64, kInt64, kInt32, kUInt8, kBool, kBFloat16, kFloat16};
constexpr OperationChecks kChecks("ThreadProcessGroup", kAllDtypes, kAllDtypes);

Tensor on_host(const Tensor& t) { return native::to(t, kCPU, t.dtype()); }

// Writes the host result into a rank's tensor on its device.
void copy_back(Tensor& dst, const Tensor& host) { native::copy_(dst, native::to(host, dst.device(), dst.dtype())); }

void reduce_into(Tensor& acc, const Tensor& other, ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM:
    case ReduceOp::AVG: native::binary_(BinaryOp::Add, acc, other, OpParams{1.0}); break;
    case ReduceOp::PRODUCT: native::binary_(BinaryOp::Mul, acc, other); break;
    case ReduceOp::MIN: native::binary_(BinaryOp::Minimum, acc, other); break;
    case ReduceOp::MAX: native::binary_(BinaryOp::Maximum, acc, other); break;
  }
}

}  // namespace

std::shared_ptr<ThreadWorld::Slot> ThreadWorld::arrive(int64_t seq, int rank, Call call,
                                                       const std::function<void(std::vector<Call>&)>& compute) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& slot = slots_[seq];
  if (!slot) {
    slot = std::make_shared<Slot>();
    slot->calls.resize(size_);
  }
  std::shared_ptr<Slot> mine = slot;
  mine->calls[rank] = std::move(call);
  if (++mine->arrived == size_) {
    const Call& first = mine->calls[0];
    for (int r = 1; r < size_ && mine->error.empty(); ++r) {
      const Call& other = mine->calls[r];
      if (other.op != first.op || other.numel != first.numel) {
        mine->error = fmt::format("collective #{}: rank 0 called {} of {} elements but rank {} called {} of {}", seq,
                                  first.op, first.numel, r, other.op, other.numel);
      }
    }
    if (mine->error.empty()) {
      try {
        compute(mine->calls);
      } catch (const std::exception& e) {
        mine->error = e.what();
      }
    }
    mine->done = true;
    slots_.erase(seq);
    cv_.notify_all();
  }
  return mine;
}

void ThreadWorld::wait(const std::shared_ptr<Slot>& slot, int64_t seq, const std::string& op) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!cv_.wait_for(lock, timeout_, [&] { return slot->done; })) {
    std::vector<int> absent;
    for (int r = 0; r < size_; ++r) {
      if (slot->calls[r].op.empty()) absent.push_back(r);
    }
    BRISK_FAIL("{} (collective #{}) timed out after {} ms; ranks {} did not arrive", op, seq, timeout_.count(),
               fmt::join(absent, ", "));
  }
  BRISK_CHECK(slot->error.empty(), "{}", slot->error);
}

bool ThreadWorld::completed(const std::shared_ptr<Slot>& slot) {
  std::lock_guard<std::mutex> lock(mutex_);
  return slot->done;
}

void ThreadWorld::send(int src, int dst, int tag, const Tensor& tensor) {
  Tensor message = native::clone(on_host(tensor));
  std::lock_guard<std::mutex> lock(mutex_);
  Channel& channel = channels_[{src, dst, tag}];
  if (channel.waiting.empty()) {
    channel.messages.push_back(std::move(message));
    return;
  }
  std::shared_ptr<Delivery> delivery = std::move(channel.waiting.front());
  channel.waiting.pop_front();
  deliver(*delivery, message, src, dst, tag);
}

std::shared_ptr<ThreadWorld::Delivery> ThreadWorld::recv(int src, int dst, int tag, Tensor target) {
  auto delivery = std::make_shared<Delivery>();
  delivery->target = std::move(target);
  std::lock_guard<std::mutex> lock(mutex_);
  Channel& channel = channels_[{src, dst, tag}];
  if (channel.messages.empty()) {
    channel.waiting.push_back(delivery);
  } else {
    deliver(*delivery, channel.messages.front(), src, dst, tag);
    channel.messages.pop_front();
  }
  return delivery;
}

void ThreadWorld::deliver(Delivery& delivery, const Tensor& message, int src, int dst, int tag) {
  if (message.numel() != delivery.target.numel() || message.dtype() != delivery.target.dtype()) {
    delivery.error =
        fmt::format("recv from rank {} (tag {}) on rank {}: expected {} elements of {} but rank {} sent {} of {}", src,
                    tag, dst, delivery.target.numel(), dtype_name(delivery.target.dtype()), src, message.numel(),
                    dtype_name(message.dtype()));
  } else {
    try {
      copy_back(delivery.target, message.view(delivery.target.sizes()));
    } catch (const std::exception& e) {
      delivery.error = e.what();
    }
  }
  delivery.done = true;
  cv_.notify_all();
}

void ThreadWorld::wait(const std::shared_ptr<Delivery>& delivery, int src, int dst, int tag) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!cv_.wait_for(lock, timeout_, [&] { return delivery->done; })) {
    BRISK_FAIL("recv from rank {} (tag {}) on rank {} timed out after {} ms: rank {} sent nothing to match it", src,
               tag, dst, timeout_.count(), src);
  }
  BRISK_CHECK(delivery->error.empty(), "{}", delivery->error);
}

bool ThreadWorld::completed(const std::shared_ptr<Delivery>& delivery) {
  std::lock_guard<std::mutex> lock(mutex_);
  return delivery->done;
}

std::shared_ptr<Work> ThreadProcessGroup::start(ThreadWorld::Call call,
                                                const std::function<void(std::vector<ThreadWorld::Call>&)>& compute) {
  std::string op = call.op;
  history_.push_back(op);
  int64_t seq = seq_++;
  auto slot = world_->arrive(seq, rank(), std::move(call), compute);
  return std::make_shared<ThreadWork>(world_, std::move(slot), seq, op);
}

std::shared_ptr<Work> ThreadProcessGroup::broadcast(Tensor& tensor, int root) {
  kChecks.broadcast(*this, tensor, root);
  return start({"broadcast", tensor.numel(), {tensor}}, [root](std::vector<ThreadWorld::Call>& calls) {
    Tensor value = on_host(calls[root].tensors[0]);
    for (size_t r = 0; r < calls.size(); ++r) {
      if (static_cast<int>(r) != root) copy_back(calls[r].tensors[0], value);
    }
  });
}

std::shared_ptr<Work> ThreadProcessGroup::all_reduce(Tensor& tensor, ReduceOp op) {
  kChecks.all_reduce(*this, tensor, op);
  std::string name = fmt::format("all_reduce({})", reduce_op_name(op));
  return start({name, tensor.numel(), {tensor}}, [op](std::vector<ThreadWorld::Call>& calls) {
    Tensor acc = native::clone(on_host(calls[0].tensors[0]));
    for (size_t r = 1; r < calls.size(); ++r) reduce_into(acc, on_host(calls[r].tensors[0]), op);
    if (op == ReduceOp::AVG) native::binary_(BinaryOp::Div, acc, Scalar(static_cast<int64_t>(calls.size())));
    for (auto& call : calls) copy_back(call.tensors[0], acc);
  });
}

std::shared_ptr<Work> ThreadProcessGroup::all_gather(std::vector<Tensor>& outputs, const Tensor& input) {
  kChecks.all_gather(*this, outputs, input);
  std::vector<Tensor> tensors{input};
  tensors.insert(tensors.end(), outputs.begin(), outputs.end());
  return start({"all_gather", input.numel(), tensors}, [](std::vector<ThreadWorld::Call>& calls) {
    for (size_t r = 0; r < calls.size(); ++r) {
      Tensor value = on_host(calls[r].tensors[0]);
      for (auto& call : calls) copy_back(call.tensors[1 + r], value);
    }
  });
}

std::shared_ptr<Work> ThreadProcessGroup::gather(std::vector<Tensor>& outputs, const Tensor& input, int root) {
  kChecks.gather(*this, outputs, input, root);
  std::vector<Tensor> tensors{input};
  if (rank() == root) tensors.insert(tensors.end(), outputs.begin(), outputs.end());
  return start({"gather", input.numel(), tensors}, [root](std::vector<ThreadWorld::Call>& calls) {
    for (size_t r = 0; r < calls.size(); ++r) copy_back(calls[root].tensors[1 + r], on_host(calls[r].tensors[0]));
  });
}

std::shared_ptr<Work> ThreadProcessGroup::reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs,
                                                         ReduceOp op) {
  kChecks.reduce_scatter(*this, output, inputs, op);
  std::vector<Tensor> tensors{output};
  tensors.insert(tensors.end(), inputs.begin(), inputs.end());
  std::string name = fmt::format("reduce_scatter({})", reduce_op_name(op));
  return start({name, output.numel(), tensors}, [op](std::vector<ThreadWorld::Call>& calls) {
    for (size_t r = 0; r < calls.size(); ++r) {
      Tensor acc = native::clone(on_host(calls[0].tensors[1 + r]));
      for (size_t other = 1; other < calls.size(); ++other) reduce_into(acc, on_host(calls[other].tensors[1 + r]), op);
      if (op == ReduceOp::AVG) native::binary_(BinaryOp::Div, acc, Scalar(static_cast<int64_t>(calls.size())));
      copy_back(calls[r].tensors[0], acc);
    }
  });
}

std::shared_ptr<Work> ThreadProcessGroup::barrier() {
  return start({"barrier", 0, {}}, [](std::vector<ThreadWorld::Call>&) {});
}

std::shared_ptr<Work> ThreadProcessGroup::send(const Tensor& tensor, int dst, int tag) {
  kChecks.send(*this, tensor, dst);
  world_->send(rank(), dst, tag, tensor);
  return std::make_shared<PointToPointWork>(world_, nullptr, rank(), dst, tag);
}

std::shared_ptr<Work> ThreadProcessGroup::recv(Tensor& tensor, int src, int tag) {
  kChecks.recv(*this, tensor, src);
  auto delivery = world_->recv(src, rank(), tag, tensor);
  return std::make_shared<PointToPointWork>(world_, std::move(delivery), src, rank(), tag);
}

void run_ranks(int world, const std::function<void(int rank)>& fn) { brisk::testing::run_threads(world, "rank", fn); }

}  // namespace brisk::dist::testing
