#pragma once
// The kernels of one device type. Native ops (tensor/native/) check arguments, apply
// broadcasting and type promotion and allocate outputs; then they call the Backend of the
// device the tensors live on. A Backend may assume:
//   - all tensors are on its device;
//   - for unary/binary/ternary, inputs already have the output's shape after broadcasting
//     (they may be expanded views with stride 0) and one common dtype, and `out` has that
//     dtype too, except for comparisons and logical ops, whose `out` is bool, and Where,
//     whose condition is bool;
//   - `out` may have any strides, but does not overlap its inputs in a partial way.
#include <cstdint>
#include <vector>

#include "tensor/op_kinds.h"
#include "tensor/optimizer_step_params.h"
#include "tensor/scalar.h"
#include "tensor/tensor.h"
#include "tensor/window_params.h"

namespace brisk {

class Backend {
 public:
  virtual ~Backend() = default;

  // dst[...] = src[...] with dtype conversion; same shape; src may be on the host or this
  // device (a CUDA backend handles both directions).
  virtual void copy(const Tensor& dst, const Tensor& src, bool non_blocking) = 0;
  virtual void unary(UnaryOp op, const Tensor& out, const Tensor& in, OpParams params) = 0;
  virtual void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, OpParams params) = 0;
  virtual void ternary(TernaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c,
                       OpParams params) = 0;
  // Reduces `in` over the sorted dims `dims` into `out`, whose shape is in's with those dims
  // set to 1 (keepdim form). `indices` (int64, same shape as out) is written by
  // Max/Min when defined, and by ArgMax/ArgMin (then `out` is undefined).
  virtual void reduce(ReduceOp op, const Tensor& out, const Tensor& indices, const Tensor& in,
                      const std::vector<int64_t>& dims, OpParams params) = 0;
  // Contiguous in/out; softmax or log-softmax along `dim`.
  virtual void softmax(const Tensor& out, const Tensor& in, int64_t dim, bool log) = 0;
  // grad_in = backward of (log_)softmax given its output and the gradient of the output.
  virtual void softmax_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& out, int64_t dim,
                                bool log) = 0;
  // out[b] = alpha * a[b] @ b[b] + beta * out[b] for 3-D tensors [B, M, K] x [B, K, N] -> [B, M, N].
  // a and b may be transposed views (either of their last two strides may be 1).
  virtual void batched_gemm(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta) = 0;
  // out = in.index_select(dim, index) with index int64 1-D, out preallocated.
  virtual void index_select(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) = 0;
  // out[i][j] = in[i][index[i][j]] (dim=1 example); index int64 with out's shape. For
  // index_select, gather and scatter_add every tensor has at least one dim, and an index
  // out of range is an error (the CPU kernels raise it before writing anything).
  virtual void gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) = 0;
  // self[i][index[i][j]] += src[i][j] (dim=1 example), in place on self.
  virtual void scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) = 0;
  // Fills `out` from the counter-based Philox stream (seed, offset): element i of the
  // contiguous `out` uses counter offset + i, so CPU and CUDA draw the same numbers.
  virtual void random(RandomOp op, const Tensor& out, uint64_t seed, uint64_t offset, OpParams params) = 0;

  // ---- Convolution and pooling over contiguous NCHW floating point tensors (the CPU computes
  // bfloat16/float16 in float32), geometry checked by the native ops (tensor/native/conv.cc,
  // pool.cc). A backend without them raises "<op>: not implemented for device <device> yet" (these defaults). ----

  // out [N, OC, OH, OW] = input [N, C, H, W] convolved with weight [OC, C / groups, KH, KW],
  // plus bias [OC] when defined.
  virtual void conv2d(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                      const Conv2dParams& params);
  // The gradients of conv2d given grad_out [N, OC, OH, OW]; each of grad_input, grad_weight
  // and grad_bias is overwritten when defined and skipped otherwise.
  virtual void conv2d_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                               const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                               const Conv2dParams& params);
  // out and indices [N, C, OH, OW]: each window's maximum (NaN wins, as in PyTorch) and its
  // int64 position h * W + w within the input plane.
  virtual void max_pool2d(const Tensor& out, const Tensor& indices, const Tensor& input, const Pool2dParams& params);
  // grad_input [N, C, H, W] (overwritten) receives each grad_out element at its argmax.
  virtual void max_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& indices);
  virtual void avg_pool2d(const Tensor& out, const Tensor& input, const Pool2dParams& params);
  // grad_input (overwritten) for avg_pool2d with the same params.
  virtual void avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Pool2dParams& params);
  // out [N, C, OH, OW]: the mean of input rows [floor(i * H / OH), ceil((i + 1) * H / OH)),
  // likewise for columns.
  virtual void adaptive_avg_pool2d(const Tensor& out, const Tensor& input);
  virtual void adaptive_avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out);

  // ---- Batch normalization (PyTorch's native_batch_norm) over contiguous [N, C, *] tensors
  // of one float dtype, per channel c over the N * (spatial) values; weight, bias and the
  // running statistics are [C] and each may be undefined (weight 1, bias 0, no running
  // statistics). With bfloat16/float16 data (input, out, grad_out, grad_input) every [C]
  // tensor is float32 and the arithmetic is float32's. A backend without these kernels says so in has_batch_norm(), and
  // nn::functional::batch_norm composes the op from elementwise ops and reductions instead
  // (these defaults raise). ----
  virtual bool has_batch_norm() const { return false; }
  // out = (input - mean) * invstd * weight + bias. With `training`, mean and invstd =
  // 1 / sqrt(var + eps) are the batch's (var biased) and the running statistics, when
  // defined, move towards them: running = (1 - momentum) * running + momentum * batch, with
  // the unbiased variance for running_var. Otherwise they come from running_mean and
  // running_var. save_mean and save_invstd [C] receive the mean and invstd used.
  virtual void batch_norm(const Tensor& out, const Tensor& save_mean, const Tensor& save_invstd, const Tensor& input,
                          const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                          const Tensor& running_var, bool training, double momentum, double eps);
  // The gradients of batch_norm from its saved statistics; with `training` the gradient also
  // flows through the batch statistics. Each of grad_input, grad_weight and grad_bias is
  // overwritten when defined and skipped otherwise.
  virtual void batch_norm_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                                   const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                                   const Tensor& save_mean, const Tensor& save_invstd, bool training);

  // ---- Fused optimizer updates over contiguous float32/float64 tensors of one shape and
  // dtype (tensor/functors/optimizer_step.h), in place on everything but grad. A buffer
  // the options do not use may be undefined. ----
  virtual void sgd_step(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
                        const SgdStepParams& params);
  virtual void adam_step(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                         const Tensor& max_exp_avg_sq, const AdamStepParams& params);
  // GradScaler's unscale_ of one contiguous float32/float64 gradient: sets found_inf (float32,
  // one element, on the gradient's device) to 1 when an element is inf or NaN, and multiplies
  // every element by inv_scale (tensor/functors/optimizer_step.h's Unscale).
  virtual void non_finite_check_and_unscale(const Tensor& grad, const Tensor& found_inf, float inv_scale);
};

// The kernels of `device`'s type; errors naming the missing library when its backend was not
// linked in (//cuda registers the CUDA backend, //tensor/sim the simulated device's).
Backend& backend_for(Device device);
// The CPU backend, built in: defined by tensor/cpu/ (//tensor:cpu, which //tensor links), a
// library above this one because its kernels call native ops.
Backend& cpu_backend();
// Installs the backend of a non-CPU device type (at static initialization).
void register_backend(DeviceType type, Backend* backend);

}  // namespace brisk
