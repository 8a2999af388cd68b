// The CUDA kernels of scaled_dot_product_attention, registered from this translation unit (a
// build without CUDA does not compile it, and the op has no CUDA kernel). Plain, not fast: one
// thread per query row for the forward and dQ, one per key row for dK and dV (so no thread
// shares an output row and no atomics are needed), each walking the rows it pairs with and
// recomputing p = exp(q·k scale - lse) as the CPU kernels do (attention_cpu.cc has the math).
// Tested against the CPU kernels on a GPU (tests/nn/attention:scaled_dot_product_attention_gpu_test).
#include <tuple>
#include <vector>

#include "cuda/device.h"
#include "cuda/error.h"
#include "cuda/stream.h"
#include "library/library.h"
#include "tensor/dispatch.h"
#include "tensor/native/ops.h"

namespace brisk::nn::attention {
namespace {

constexpr int kThreads = 128;

int blocks_for(int64_t rows) { return static_cast<int>((rows + kThreads - 1) / kThreads); }

struct Sizes {
  int64_t batch, queries, keys, head_dim, value_dim;
};

template <typename T>
__device__ T dot(const T* a, const T* b, int64_t n) {
  T s = 0;
  for (int64_t e = 0; e < n; ++e) s += a[e] * b[e];
  return s;
}

// The keys query i sees.
__device__ int64_t visible(int64_t i, int64_t keys, bool is_causal) {
  return is_causal ? (i + 1 < keys ? i + 1 : keys) : keys;
}

// Row (b, i) of the output: an online softmax over the keys it sees, accumulated in place.
template <typename T>
__global__ void forward_kernel(Sizes n, const T* q, const T* k, const T* v, T* out, T* lse, bool is_causal, T scale) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;  // b * L + i
  if (row >= n.batch * n.queries) return;
  const int64_t b = row / n.queries, i = row % n.queries;
  const T* qi = q + row * n.head_dim;
  const T* kb = k + b * n.keys * n.head_dim;
  const T* vb = v + b * n.keys * n.value_dim;
  T* o = out + row * n.value_dim;
  for (int64_t e = 0; e < n.value_dim; ++e) o[e] = 0;
  T max = -INFINITY, sum = 0;
  for (int64_t j = 0; j < visible(i, n.keys, is_causal); ++j) {
    const T s = dot(qi, kb + j * n.head_dim, n.head_dim) * scale;
    const T new_max = s > max ? s : max;
    const T rescale = exp(max - new_max), p = exp(s - new_max);
    sum = sum * rescale + p;
    for (int64_t e = 0; e < n.value_dim; ++e) o[e] = o[e] * rescale + p * vb[j * n.value_dim + e];
    max = new_max;
  }
  for (int64_t e = 0; e < n.value_dim; ++e) o[e] /= sum;
  lse[row] = max + log(sum);
}

// row_dot[b, i] = dO_i · O_i.
template <typename T>
__global__ void row_dot_kernel(Sizes n, const T* grad, const T* out, T* row_dot) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= n.batch * n.queries) return;
  row_dot[row] = dot(grad + row * n.value_dim, out + row * n.value_dim, n.value_dim);
}

// dQ_i = scale Σ_j p_ij (dO_i · v_j - row_dot_i) k_j.
template <typename T>
__global__ void grad_q_kernel(Sizes n, const T* grad, const T* q, const T* k, const T* v, const T* lse,
                              const T* row_dot, T* grad_q, bool is_causal, T scale) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= n.batch * n.queries) return;
  const int64_t b = row / n.queries, i = row % n.queries;
  const T* qi = q + row * n.head_dim;
  const T* dOi = grad + row * n.value_dim;
  T* dq = grad_q + row * n.head_dim;
  for (int64_t e = 0; e < n.head_dim; ++e) dq[e] = 0;
  for (int64_t j = 0; j < visible(i, n.keys, is_causal); ++j) {
    const T* kj = k + (b * n.keys + j) * n.head_dim;
    const T p = exp(dot(qi, kj, n.head_dim) * scale - lse[row]);
    const T ds = p * (dot(dOi, v + (b * n.keys + j) * n.value_dim, n.value_dim) - row_dot[row]);
    for (int64_t e = 0; e < n.head_dim; ++e) dq[e] += scale * ds * kj[e];
  }
}

// dV_j = Σ_i p_ij dO_i and dK_j = scale Σ_i p_ij (dO_i · v_j - row_dot_i) q_i, over the queries
// that see key j.
template <typename T>
__global__ void grad_kv_kernel(Sizes n, const T* grad, const T* q, const T* k, const T* v, const T* lse,
                               const T* row_dot, T* grad_k, T* grad_v, bool is_causal, T scale) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;  // b * S + j
  if (row >= n.batch * n.keys) return;
  const int64_t b = row / n.keys, j = row % n.keys;
  const T* kj = k + row * n.head_dim;
  const T* vj = v + row * n.value_dim;
  T* dk = grad_k + row * n.head_dim;
  T* dv = grad_v + row * n.value_dim;
  for (int64_t e = 0; e < n.head_dim; ++e) dk[e] = 0;
  for (int64_t e = 0; e < n.value_dim; ++e) dv[e] = 0;
  for (int64_t i = is_causal ? j : 0; i < n.queries; ++i) {
    const int64_t qrow = b * n.queries + i;
    const T* qi = q + qrow * n.head_dim;
    const T* dOi = grad + qrow * n.value_dim;
    const T p = exp(dot(qi, kj, n.head_dim) * scale - lse[qrow]);
    const T ds = p * (dot(dOi, vj, n.value_dim) - row_dot[qrow]);
    for (int64_t e = 0; e < n.value_dim; ++e) dv[e] += p * dOi[e];
    for (int64_t e = 0; e < n.head_dim; ++e) dk[e] += scale * ds * qi[e];
  }
}

Sizes sizes_of(const Tensor& q, const Tensor& k, const Tensor& v) {
  const int64_t d = q.dim();
  return {q.numel() == 0 ? 0 : q.numel() / (q.size(d - 2) * q.size(d - 1)), q.size(d - 2), k.size(d - 2), q.size(d - 1),
          v.size(d - 1)};
}

std::tuple<Tensor, Tensor> forward_cuda(const Tensor& query, const Tensor& key, const Tensor& value, bool is_causal,
                                        double scale) {
  Tensor q = query.contiguous(), k = key.contiguous(), v = value.contiguous();
  Shape out_shape = q.sizes();
  out_shape.back() = v.size(-1);
  Tensor out = native::empty(out_shape, q.options());
  Tensor lse = native::empty(Shape(q.sizes().begin(), q.sizes().end() - 1), q.options());
  const Sizes n = sizes_of(q, k, v);
  if (n.batch * n.queries == 0) return {out, lse};
  const int device = q.device().index;
  cuda::DeviceGuard guard(device);
  dispatch(TypeList<float, double>{}, q.dtype(), "nn::scaled_dot_product_attention", [&](auto tag) {
    using T = typename decltype(tag)::type;
    forward_kernel<T><<<blocks_for(n.batch * n.queries), kThreads, 0, cuda::current_stream(device)>>>(
        n, q.data_ptr<T>(), k.data_ptr<T>(), v.data_ptr<T>(), out.data_ptr<T>(), lse.data_ptr<T>(), is_causal,
        static_cast<T>(scale));
    BRISK_CUDA_CHECK_LAUNCH();
  });
  return {out, lse};
}

std::vector<Tensor> backward_cuda(const Tensor& grad, const Tensor& query, const Tensor& key, const Tensor& value,
                                  const Tensor& out, const Tensor& logsumexp, bool is_causal, double scale) {
  Tensor g = grad.contiguous(), q = query.contiguous(), k = key.contiguous(), v = value.contiguous(),
         o = out.contiguous(), lse = logsumexp.contiguous();
  Tensor grad_q = native::empty_like(q), grad_k = native::empty_like(k), grad_v = native::empty_like(v);
  Tensor row_dot = native::empty_like(lse);
  const Sizes n = sizes_of(q, k, v);
  const int device = q.device().index;
  cuda::DeviceGuard guard(device);
  dispatch(TypeList<float, double>{}, q.dtype(), "nn::scaled_dot_product_attention_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const cudaStream_t stream = cuda::current_stream(device);
    const T s = static_cast<T>(scale);
    if (n.batch * n.queries > 0) {
      row_dot_kernel<T><<<blocks_for(n.batch * n.queries), kThreads, 0, stream>>>(n, g.data_ptr<T>(), o.data_ptr<T>(),
                                                                                  row_dot.data_ptr<T>());
      BRISK_CUDA_CHECK_LAUNCH();
      grad_q_kernel<T><<<blocks_for(n.batch * n.queries), kThreads, 0, stream>>>(
          n, g.data_ptr<T>(), q.data_ptr<T>(), k.data_ptr<T>(), v.data_ptr<T>(), lse.data_ptr<T>(),
          row_dot.data_ptr<T>(), grad_q.data_ptr<T>(), is_causal, s);
      BRISK_CUDA_CHECK_LAUNCH();
    }
    if (n.batch * n.keys > 0) {
      grad_kv_kernel<T><<<blocks_for(n.batch * n.keys), kThreads, 0, stream>>>(
          n, g.data_ptr<T>(), q.data_ptr<T>(), k.data_ptr<T>(), v.data_ptr<T>(), lse.data_ptr<T>(),
          row_dot.data_ptr<T>(), grad_k.data_ptr<T>(), grad_v.data_ptr<T>(), is_causal, s);
      BRISK_CUDA_CHECK_LAUNCH();
    }
  });
  return {grad_q, grad_k, grad_v};
}

}  // namespace
}  // namespace brisk::nn::attention

BRISK_LIBRARY_IMPL(nn, CUDA, m) {
  m.impl("scaled_dot_product_attention", &brisk::nn::attention::forward_cuda);
  m.impl("scaled_dot_product_attention_backward", &brisk::nn::attention::backward_cuda);
}
