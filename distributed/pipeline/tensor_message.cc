#include "distributed/pipeline/tensor_message.h"

#include <algorithm>

#include "autograd/ops.h"
#include "tensor/error.h"

namespace brisk::dist::pipeline {

namespace {

constexpr int64_t kUndefined = -1;  // the ndim of an undefined tensor
constexpr int64_t kLastDType = static_cast<int64_t>(DType::Float16);

TensorOptions int64_on(const ProcessGroup& group) { return TensorOptions().dtype(kInt64).device(group.device()); }

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

Tensor int64_tensor(const ProcessGroup& group, std::vector<int64_t> values) {
  const auto n = static_cast<int64_t>(values.size());
  return tensor(values, {n}, int64_on(group));
}

}  // namespace

void PendingSend::wait() {
  for (auto& work : works) work->wait();
  works.clear();
  buffers.clear();
}

PendingSend send_tensors(ProcessGroup& group, const std::vector<Tensor>& tensors, int dst, int tag) {
  PendingSend pending;
  std::vector<int64_t> header = header_of(tensors);
  std::vector<int64_t> first(header.begin(), header.begin() + std::min<int64_t>(header.size(), kHeaderCapacity));
  first.resize(kHeaderCapacity, 0);
  pending.buffers.push_back(int64_tensor(group, first));
  if (static_cast<int64_t>(header.size()) > kHeaderCapacity) {
    pending.buffers.push_back(
        int64_tensor(group, std::vector<int64_t>(header.begin() + kHeaderCapacity, header.end())));
  }
  for (const Tensor& t : tensors) {
    if (t.defined() && t.numel() > 0) pending.buffers.push_back(t.detach().contiguous());
  }
  for (const Tensor& buffer : pending.buffers) pending.works.push_back(group.send(buffer, dst, tag));
  return pending;
}

std::vector<Tensor> recv_tensors(ProcessGroup& group, int src, int tag) {
  Tensor first = empty({kHeaderCapacity}, int64_on(group));
  group.recv(first, src, tag)->wait();
  std::vector<int64_t> header = first.to(kCPU).to_vector<int64_t>();
  const int64_t n = header[0];
  BRISK_CHECK(n >= 2, "recv_tensors from rank {} (tag {}): a header of {} values is malformed", src, tag, n);
  if (n > kHeaderCapacity) {
    Tensor rest = empty({n - kHeaderCapacity}, int64_on(group));
    group.recv(rest, src, tag)->wait();
    std::vector<int64_t> more = rest.to(kCPU).to_vector<int64_t>();
    header.insert(header.end(), more.begin(), more.end());
  }
  header.resize(n);
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
  std::vector<std::shared_ptr<Work>> works;
  for (Tensor& t : tensors) {
    if (t.defined() && t.numel() > 0) works.push_back(group.recv(t, src, tag));
  }
  for (auto& work : works) work->wait();
  return tensors;
}

}  // namespace brisk::dist::pipeline
