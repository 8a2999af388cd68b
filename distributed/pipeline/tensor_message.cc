#include "distributed/pipeline/tensor_message.h"

#include <algorithm>
#include <string>

#include "autograd/ops.h"
#include "tensor/error.h"

namespace brisk::dist::pipeline {

namespace {

constexpr int64_t kUndefined = -1;  // the ndim of an undefined tensor
constexpr int64_t kLastDType = static_cast<int64_t>(DType::Float16);
// The flag, the wire's first value: whether the shapes are those of the stream's last message.
constexpr int64_t kSameShapes = 1, kNewShapes = 0;

TensorOptions int64_on(const ProcessGroup& group) { return TensorOptions().dtype(kInt64).device(group.device()); }

Tensor int64_tensor(const ProcessGroup& group, const std::vector<int64_t>& values) {
  return tensor(values, {static_cast<int64_t>(values.size())}, int64_on(group));
}

// [length, n, (dtype, ndim, sizes...) per tensor].
std::vector<int64_t> header_of(const std::vector<Tensor>& tensors) {
  std::vector<int64_t> header{0, static_cast<int64_t>(tensors.size())};
  for (const Tensor& t : tensors) {
    if (!t.defined()) {
      header.insert(header.end(), {0, kUndefined});
      continue;
    }
    header.push_back(static_cast<int64_t>(t.dtype()));
    header.push_back(t.dim());
    header.insert(header.end(), t.sizes().begin(), t.sizes().end());
  }
  header[0] = static_cast<int64_t>(header.size());
  return header;
}

// Empty tensors (undefined where the header says so) shaped by a header, on the group's device.
std::vector<Tensor> tensors_of(const ProcessGroup& group, const std::vector<int64_t>& header, int src, int tag) {
  const auto n = static_cast<int64_t>(header.size());
  auto malformed = [&](const std::string& what) {
    BRISK_FAIL("recv_tensors from rank {} (tag {}): malformed header ({}): [{}]", src, tag, what,
               fmt::join(header, ", "));
  };
  std::vector<Tensor> tensors;
  int64_t pos = 2;
  for (int64_t i = 0; i < header[1]; ++i) {
    if (pos + 2 > n) malformed(fmt::format("tensor {} past its end", i));
    const int64_t dtype = header[pos], ndim = header[pos + 1];
    pos += 2;
    if (ndim == kUndefined) {
      tensors.emplace_back();
      continue;
    }
    if (dtype < 0 || dtype > kLastDType || ndim < 0 || pos + ndim > n) malformed(fmt::format("tensor {}", i));
    Shape sizes(header.begin() + pos, header.begin() + pos + ndim);
    pos += ndim;
    tensors.push_back(empty(sizes, TensorOptions().dtype(static_cast<DType>(dtype)).device(group.device())));
  }
  if (pos != n) malformed("trailing values");
  return tensors;
}

bool has_data(const Tensor& t) { return t.defined() && t.numel() > 0; }

// Posts the receives of the tensors that have elements.
std::vector<std::shared_ptr<Work>> post_recvs(ProcessGroup& group, std::vector<Tensor>& tensors, int src, int tag) {
  std::vector<std::shared_ptr<Work>> works;
  for (Tensor& t : tensors) {
    if (has_data(t)) works.push_back(group.recv(t, src, tag));
  }
  return works;
}

void wait_all(const std::vector<std::shared_ptr<Work>>& works) {
  for (const auto& work : works) work->wait();
}

}  // namespace

void PendingSend::wait() {
  wait_all(works);
  works.clear();
  buffers.clear();
}

PendingSend send_tensors(ProcessGroup& group, const std::vector<Tensor>& tensors, int dst, int tag,
                         MessageShapes& shapes) {
  PendingSend pending;
  const std::vector<int64_t> header = header_of(tensors);
  const bool same = header == shapes.header;
  std::vector<int64_t> wire{same ? kSameShapes : kNewShapes};
  wire.insert(wire.end(), header.begin(), header.end());
  std::vector<int64_t> first(wire.begin(), wire.begin() + std::min<int64_t>(wire.size(), kHeaderCapacity));
  first.resize(kHeaderCapacity, 0);
  pending.buffers.push_back(int64_tensor(group, first));
  if (!same) {
    // The receiver has posted receives for the last message's shapes: fill them.
    if (!shapes.header.empty()) {
      for (Tensor& t : tensors_of(group, shapes.header, group.rank(), tag)) {
        if (has_data(t)) pending.buffers.push_back(t.zero_());
      }
    }
    if (static_cast<int64_t>(wire.size()) > kHeaderCapacity) {
      pending.buffers.push_back(int64_tensor(group, std::vector<int64_t>(wire.begin() + kHeaderCapacity, wire.end())));
    }
  }
  for (const Tensor& t : tensors) {
    if (has_data(t)) pending.buffers.push_back(t.detach().contiguous());
  }
  for (const Tensor& buffer : pending.buffers) pending.works.push_back(group.send(buffer, dst, tag));
  shapes.header = header;
  return pending;
}

PendingRecv post_recv_tensors(ProcessGroup& group, int src, int tag, MessageShapes& shapes) {
  PendingRecv pending(group, src, tag, shapes);
  pending.header_ = empty({kHeaderCapacity}, int64_on(group));
  pending.header_work_ = group.recv(pending.header_, src, tag);
  if (!shapes.header.empty()) {
    pending.expected_ = tensors_of(group, shapes.header, src, tag);
    pending.expected_works_ = post_recvs(group, pending.expected_, src, tag);
  }
  return pending;
}

std::vector<Tensor> PendingRecv::wait() {
  BRISK_CHECK(header_work_, "recv_tensors from rank {} (tag {}): this receive was waited already", src_, tag_);
  ProcessGroup& group = *group_;
  std::shared_ptr<Work> header_work = std::move(header_work_);
  header_work->wait();
  std::vector<int64_t> wire = header_.to(kCPU).to_vector<int64_t>();
  wait_all(expected_works_);
  if (wire[0] == kSameShapes) {
    BRISK_CHECK(!shapes_->header.empty(),
                "recv_tensors from rank {} (tag {}): the first message of the stream claims "
                "the last one's shapes",
                src_, tag_);
    return std::move(expected_);
  }
  const int64_t length = wire[1];
  BRISK_CHECK(length >= 2, "recv_tensors from rank {} (tag {}): a header of {} values is malformed", src_, tag_,
              length);
  if (length + 1 > kHeaderCapacity) {
    Tensor rest = empty({length + 1 - kHeaderCapacity}, int64_on(group));
    group.recv(rest, src_, tag_)->wait();
    std::vector<int64_t> more = rest.to(kCPU).to_vector<int64_t>();
    wire.insert(wire.end(), more.begin(), more.end());
  }
  std::vector<int64_t> header(wire.begin() + 1, wire.begin() + 1 + length);
  std::vector<Tensor> tensors = tensors_of(group, header, src_, tag_);
  wait_all(post_recvs(group, tensors, src_, tag_));
  shapes_->header = std::move(header);
  return tensors;
}

std::vector<Tensor> recv_tensors(ProcessGroup& group, int src, int tag, MessageShapes& shapes) {
  return post_recv_tensors(group, src, tag, shapes).wait();
}

}  // namespace brisk::dist::pipeline
