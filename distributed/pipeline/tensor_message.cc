#include "distributed/pipeline/tensor_message.h"

#include "autograd/ops.h"
#include "tensor/error.h"

namespace brisk::dist::pipeline {

namespace {

constexpr int64_t kUndefined = -1;  // the ndim of an undefined tensor
constexpr int64_t kLastDType = static_cast<int64_t>(DType::Float16);

TensorOptions int64_on(const ProcessGroup& group) { return TensorOptions().dtype(kInt64).device(group.device()); }

std::vector<int64_t> header_of(const std::vector<Tensor>& tensors) {
  std::vector<int64_t> header{static_cast<int64_t>(tensors.size())};
  for (const Tensor& t : tensors) {
    if (!t.defined()) {
      header.insert(header.end(), {0, kUndefined});
      continue;
    }
    header.push_back(static_cast<int64_t>(t.dtype()));
    header.push_back(t.dim());
    header.insert(header.end(), t.sizes().begin(), t.sizes().end());
  }
  return header;
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
  pending.buffers.push_back(tensor(std::vector<int64_t>{static_cast<int64_t>(header.size())}, {1}, int64_on(group)));
  pending.buffers.push_back(tensor(header, {static_cast<int64_t>(header.size())}, int64_on(group)));
  for (const Tensor& t : tensors) {
    if (t.defined() && t.numel() > 0) pending.buffers.push_back(t.detach().contiguous());
  }
  for (const Tensor& buffer : pending.buffers) pending.works.push_back(group.send(buffer, dst, tag));
  return pending;
}

std::vector<Tensor> recv_tensors(ProcessGroup& group, int src, int tag) {
  Tensor length = empty({1}, int64_on(group));
  group.recv(length, src, tag)->wait();
  const int64_t n = length.to(kCPU).data_ptr<int64_t>()[0];
  BRISK_CHECK(n >= 1, "recv_tensors from rank {} (tag {}): a header of {} values is malformed", src, tag, n);
  Tensor header_tensor = empty({n}, int64_on(group));
  group.recv(header_tensor, src, tag)->wait();
  Tensor host = header_tensor.to(kCPU);
  const int64_t* header = host.data_ptr<int64_t>();
  auto malformed = [&](const std::string& what) {
    BRISK_FAIL("recv_tensors from rank {} (tag {}): malformed header ({}): [{}]", src, tag, what,
               fmt::join(header, header + n, ", "));
  };
  std::vector<Tensor> tensors;
  int64_t pos = 1;
  for (int64_t i = 0; i < header[0]; ++i) {
    if (pos + 2 > n) malformed(fmt::format("tensor {} past its end", i));
    const int64_t dtype = header[pos], ndim = header[pos + 1];
    pos += 2;
    if (ndim == kUndefined) {
      tensors.emplace_back();
      continue;
    }
    if (dtype < 0 || dtype > kLastDType || ndim < 0 || pos + ndim > n) malformed(fmt::format("tensor {}", i));
    Shape sizes(header + pos, header + pos + ndim);
    pos += ndim;
    tensors.push_back(empty(sizes, TensorOptions().dtype(static_cast<DType>(dtype)).device(group.device())));
  }
  if (pos != n) malformed("trailing values");
  for (Tensor& t : tensors) {
    if (t.defined() && t.numel() > 0) group.recv(t, src, tag)->wait();
  }
  return tensors;
}

}  // namespace brisk::dist::pipeline
