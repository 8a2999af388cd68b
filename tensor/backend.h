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
//
// Every method is one row of the lists below, X(name, (params), (args), event, (inputs)),
// written next to its contract. Backend's declarations, every backend's overrides and the
// forwards of the two wrappers (the profiler's, tensor/profiled_backend.h, and the simulated
// device's, tensor/sim/sim_backend.h) are generated from the rows, so a new kernel is a row
// here plus its CPU and CUDA implementations (docs/extending.md).
//   name    the method;
//   params  its parameter list; (args) the same parameters as a call's arguments;
//   event   its name in profiles and in the simulated device's errors: PyTorch's name of the
//           op, an expression over the parameters where one method runs several ops;
//   inputs  the tensors a profile describes as the op's inputs, the first always defined;
//           an entry may be a list (a std::vector<Tensor> parameter: non-empty, its tensors
//           defined), which the simulated device checks and aliases tensor by tensor.
#include <cstdint>
#include <vector>

#include "tensor/fused_activation.h"
#include "tensor/nll_loss_params.h"
#include "tensor/op_kinds.h"
#include "tensor/optimizer_step_params.h"
#include "tensor/scalar.h"
#include "tensor/tensor.h"
#include "tensor/window_params.h"

// dst[...] = src[...] with dtype conversion; same shape; src may be on the host or this
// device (a CUDA backend handles both directions). The one method whose tensors may be on two
// devices; every other is a kernel of one device.
#define BRISK_BACKEND_COPY(X) \
  X(copy, (const Tensor& dst, const Tensor& src, bool non_blocking), (dst, src, non_blocking), "copy_", (&dst, &src))

// The kernels every backend implements (pure virtual).
#define BRISK_BACKEND_CORE_KERNELS(X)                                                                                 \
  X(unary, (UnaryOp op, const Tensor& out, const Tensor& in, OpParams params), (op, out, in, params), op_name(op),    \
    (&in))                                                                                                            \
  X(binary, (BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, OpParams params),                      \
    (op, out, a, b, params), op_name(op), (&a, &b))                                                                   \
  X(ternary, (TernaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c, OpParams params),   \
    (op, out, a, b, c, params), op_name(op), (&a, &b, &c))                                                            \
  /* Reduces `in` over the sorted dims `dims` into `out`, whose shape is in's with those dims                         \
     set to 1 (keepdim form). `indices` (int64, same shape as out) is written by Max/Min when                         \
     defined, and by ArgMax/ArgMin (then `out` is undefined). */                                                      \
  X(reduce,                                                                                                           \
    (ReduceOp op, const Tensor& out, const Tensor& indices, const Tensor& in, const std::vector<int64_t>& dims,       \
     OpParams params),                                                                                                \
    (op, out, indices, in, dims, params), op_name(op), (&in))                                                         \
  /* Contiguous in/out; softmax or log-softmax along `dim`. */                                                        \
  X(softmax, (const Tensor& out, const Tensor& in, int64_t dim, bool log), (out, in, dim, log),                       \
    log ? "log_softmax" : "softmax", (&in))                                                                           \
  /* grad_in = backward of (log_)softmax given its output and the gradient of the output. */                          \
  X(softmax_backward, (const Tensor& grad_in, const Tensor& grad_out, const Tensor& out, int64_t dim, bool log),      \
    (grad_in, grad_out, out, dim, log), log ? "log_softmax_backward" : "softmax_backward", (&grad_out, &out))         \
  /* out[b] = alpha * a[b] @ b[b] + beta * out[b] for 3-D tensors [B, M, K] x [B, K, N] -> [B, M, N].                 \
     a and b may be transposed views (either of their last two strides may be 1). */                                  \
  X(batched_gemm, (const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta),                   \
    (out, a, b, alpha, beta), "bmm", (&a, &b))                                                                        \
  /* out = in.index_select(dim, index) with index int64 1-D, out preallocated. */                                     \
  X(index_select, (const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index), (out, in, dim, index),     \
    "index_select", (&in, &index))                                                                                    \
  /* out[i][j] = in[i][index[i][j]] (dim=1 example); index int64 with out's shape. For                                \
     index_select, gather and scatter_add every tensor has at least one dim, and an index                             \
     out of range is an error (the CPU kernels raise it before writing anything). */                                  \
  X(gather, (const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index), (out, in, dim, index), "gather", \
    (&in, &index))                                                                                                    \
  /* self[i][index[i][j]] += src[i][j] (dim=1 example), in place on self. */                                          \
  X(scatter_add, (const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src), (self, dim, index, src),  \
    "scatter_add_", (&self, &index, &src))                                                                            \
  /* Fills `out` from the counter-based Philox stream (seed, offset): element i of the                                \
     contiguous `out` uses counter offset + i, so CPU and CUDA draw the same numbers. */                              \
  X(random, (RandomOp op, const Tensor& out, uint64_t seed, uint64_t offset, OpParams params),                        \
    (op, out, seed, offset, params), op_name(op), (&out))

// Convolution and pooling over NCHW floating point tensors, all contiguous or all
// channels_last (the native ops decide, tensor/native/conv.cc, pool.cc; the CPU pools
// bfloat16/float16 in float32), geometry checked by the native ops (tensor/native/conv.cc,
// pool.cc). Optional: a backend without them raises "<op>: not implemented for device
// <device> yet" (Backend's defaults).
#define BRISK_BACKEND_CONV_POOL_KERNELS(X)                                                                          \
  /* out [N, OC, OH, OW] = input [N, C, H, W] convolved with weight [OC, C / groups, KH, KW],                       \
     plus bias [OC] when defined. */                                                                                \
  X(conv2d,                                                                                                         \
    (const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias, const Conv2dParams& params), \
    (out, input, weight, bias, params), "conv2d", (&input, &weight, &bias))                                         \
  /* The gradients of conv2d given grad_out [N, OC, OH, OW]; each of grad_input, grad_weight                        \
     and grad_bias is overwritten when defined and skipped otherwise. */                                            \
  X(conv2d_backward,                                                                                                \
    (const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias, const Tensor& grad_out,          \
     const Tensor& input, const Tensor& weight, const Conv2dParams& params),                                        \
    (grad_input, grad_weight, grad_bias, grad_out, input, weight, params), "conv2d_backward",                       \
    (&grad_out, &input, &weight))                                                                                   \
  /* out and indices [N, C, OH, OW]: each window's maximum (NaN wins, as in PyTorch) and its                        \
     int64 position h * W + w within the input plane. */                                                            \
  X(max_pool2d, (const Tensor& out, const Tensor& indices, const Tensor& input, const Pool2dParams& params),        \
    (out, indices, input, params), "max_pool2d", (&input))                                                          \
  /* grad_input [N, C, H, W] (overwritten) receives each grad_out element at its argmax. */                         \
  X(max_pool2d_backward, (const Tensor& grad_input, const Tensor& grad_out, const Tensor& indices),                 \
    (grad_input, grad_out, indices), "max_pool2d_backward", (&grad_out, &indices))                                  \
  X(avg_pool2d, (const Tensor& out, const Tensor& input, const Pool2dParams& params), (out, input, params),         \
    "avg_pool2d", (&input))                                                                                         \
  /* grad_input (overwritten) for avg_pool2d with the same params. */                                               \
  X(avg_pool2d_backward, (const Tensor& grad_input, const Tensor& grad_out, const Pool2dParams& params),            \
    (grad_input, grad_out, params), "avg_pool2d_backward", (&grad_out))                                             \
  /* out [N, C, OH, OW]: the mean of input rows [floor(i * H / OH), ceil((i + 1) * H / OH)),                        \
     likewise for columns. */                                                                                       \
  X(adaptive_avg_pool2d, (const Tensor& out, const Tensor& input), (out, input), "adaptive_avg_pool2d", (&input))   \
  X(adaptive_avg_pool2d_backward, (const Tensor& grad_input, const Tensor& grad_out), (grad_input, grad_out),       \
    "adaptive_avg_pool2d_backward", (&grad_out))

// Batch normalization (PyTorch's native_batch_norm) over [N, C, *] tensors of one float dtype,
// per channel c over the N * (spatial) values, followed by `activation` (tensor/
// fused_activation.h). The data tensors (input, out, grad_out, grad_input) are contiguous, or
// all 4-D channels_last (strides (H*W*C, 1, W*C, C), as torch.channels_last; a tensor that is
// both counts as contiguous). weight, bias and the running statistics are contiguous [C] and
// each may be undefined (weight 1, bias 0, no running statistics). With bfloat16/float16
// data every [C] tensor is float32 and the arithmetic is float32's. Optional: a backend
// without these kernels says so in has_batch_norm(), and nn::functional::batch_norm composes
// the op from elementwise ops and reductions instead (Backend's defaults raise).
#define BRISK_BACKEND_BATCH_NORM_KERNELS(X)                                                                            \
  /* out = activation(z), z = (input - mean) * invstd * weight + bias rounded to the data's                            \
     dtype. With `training`, mean and invstd = 1 / sqrt(var + eps) are the batch's (var                                \
     biased) and the running statistics, when defined, move towards them: running = (1 -                               \
     momentum) * running + momentum * batch, with the unbiased variance for running_var.                               \
     Otherwise they come from running_mean and running_var. save_mean and save_invstd [C]                              \
     receive the mean and invstd used. num_batches_tracked (int64 [] on the device, or                                 \
     undefined) is incremented by one with `training`, in the same kernels. */                                         \
  X(batch_norm,                                                                                                        \
    (const Tensor& out, const Tensor& save_mean, const Tensor& save_invstd, const Tensor& input, const Tensor& weight, \
     const Tensor& bias, const Tensor& running_mean, const Tensor& running_var, const Tensor& num_batches_tracked,     \
     bool training, double momentum, double eps, FusedActivation activation),                                          \
    (out, save_mean, save_invstd, input, weight, bias, running_mean, running_var, num_batches_tracked, training,       \
     momentum, eps, activation),                                                                                       \
    "batch_norm", (&input, &weight, &bias))                                                                            \
  /* The gradients of batch_norm from its saved statistics; with `training` the gradient also                          \
     flows through the batch statistics. grad_out is the gradient of the activation's output;                          \
     the activation's own gradient comes first: Relu's where `out` (batch_norm's output) > 0,                          \
     Gelu's at z recomputed from input, weight, bias and the saved statistics (`out` and                               \
     `bias` may be undefined where the activation does not read them). Each of grad_input,                             \
     grad_weight and grad_bias is overwritten when defined and skipped otherwise. */                                   \
  X(batch_norm_backward,                                                                                               \
    (const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias, const Tensor& grad_out,             \
     const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& out, const Tensor& save_mean,        \
     const Tensor& save_invstd, bool training, FusedActivation activation),                                            \
    (grad_input, grad_weight, grad_bias, grad_out, input, weight, bias, out, save_mean, save_invstd, training,         \
     activation),                                                                                                      \
    "batch_norm_backward", (&grad_out, &input, &weight))

// Fused optimizer updates over float32/float64 tensors of one shape, dtype and dense layout
// (contiguous, or all channels_last: the kernels walk their memory as one flat array)
// (tensor/functors/optimizer_step.h), in place on everything but grad. A buffer the options
// do not use may be undefined. Optional: a backend without them raises (Backend's defaults).
#define BRISK_BACKEND_OPTIMIZER_KERNELS(X)                                                                             \
  X(sgd_step, (const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer, const SgdStepParams& params),   \
    (param, grad, momentum_buffer, params), "sgd_step_", (&param, &grad))                                              \
  X(adam_step,                                                                                                         \
    (const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,                         \
     const Tensor& max_exp_avg_sq, const AdamStepParams& params),                                                      \
    (param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, params), "adam_step_", (&param, &grad))                         \
  /* GradScaler's unscale_ of one contiguous float32/float64 gradient: sets found_inf (float32,                        \
     one element, on the gradient's device) to 1 when an element is inf or NaN, and multiplies                         \
     every element by inv_scale (tensor/functors/optimizer_step.h's Unscale). */                                       \
  X(non_finite_check_and_unscale, (const Tensor& grad, const Tensor& found_inf, float inv_scale),                      \
    (grad, found_inf, inv_scale), "_amp_foreach_non_finite_check_and_unscale_", (&grad))                               \
  /* The same updates over lists of tensors (PyTorch's multi_tensor_apply): index i of every                           \
     list belongs to params[i], all tensors share one device and one dtype, each tensor is                             \
     laid out as its parameter, every list is non-empty but a buffer list the options do not                           \
     use, which is empty. Bit for bit the per-tensor kernels' results, in one call (on CUDA,                           \
     one launch per chunk of tensors) instead of one per parameter. */                                                 \
  X(multi_tensor_sgd_step,                                                                                             \
    (const std::vector<Tensor>& params, const std::vector<Tensor>& grads, const std::vector<Tensor>& momentum_buffers, \
     const SgdStepParams& options),                                                                                    \
    (params, grads, momentum_buffers, options), "_fused_sgd_", (&params, &grads))                                      \
  X(multi_tensor_adam_step,                                                                                            \
    (const std::vector<Tensor>& params, const std::vector<Tensor>& grads, const std::vector<Tensor>& exp_avgs,         \
     const std::vector<Tensor>& exp_avg_sqs, const std::vector<Tensor>& max_exp_avg_sqs,                               \
     const AdamStepParams& options),                                                                                   \
    (params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, options),                                                  \
    options.decoupled_weight_decay ? "_fused_adamw_" : "_fused_adam_", (&params, &grads))                              \
  X(multi_tensor_non_finite_check_and_unscale,                                                                         \
    (const std::vector<Tensor>& grads, const Tensor& found_inf, float inv_scale), (grads, found_inf, inv_scale),       \
    "_amp_foreach_non_finite_check_and_unscale_", (&grads))

// The fused class-index nll_loss (PyTorch's nll_loss_forward and nll_loss_backward) over an
// input [N, C, S] (S: the spatial positions, 1 for [N, C]; the native op views the other
// shapes so) of one float dtype, contiguous like every tensor here: targets int64 [N, S],
// weight [C] of the input's dtype or undefined (1 for every class), total_weight [] float32
// for bfloat16/float16 inputs, else the input's dtype. Only targets that count
// (tensor/functors/nll_loss.h) contribute; a bad one counts as ignored. Optional: a backend
// without them raises (Backend's defaults).
#define BRISK_BACKEND_LOSS_KERNELS(X)                                                                                 \
  /* out = -weight[t] * input[n, t, s] per element (0 where t does not count), [N, S] for                            \
     LossReduction::None, else [] holding their sum, divided by total_weight for Mean (NaN                            \
     when no target counts). total_weight = the sum of weight[t] over the targets that count.                         \
     target_record (int64 [4], or undefined: nothing recorded) receives this call's bad targets by                    \
     functors::fold_bad_targets, with params.call. */                                                                 \
  X(nll_loss,                                                                                                         \
    (const Tensor& out, const Tensor& total_weight, const Tensor& target_record, const Tensor& input,                  \
     const Tensor& target, const Tensor& weight, const NllLossParams& params),                                        \
    (out, total_weight, target_record, input, target, weight, params), "nll_loss_forward",                            \
    (&input, &target, &weight))                                                                                       \
  /* grad_input [N, C, S] (overwritten, zeros included) of nll_loss given grad_out (its out's                         \
     shape and dtype) and the forward's total_weight: -weight[t] * grad_out (/ total_weight                           \
     for Mean) at [n, t, s] for each target that counts, 0 everywhere else. */                                        \
  X(nll_loss_backward,                                                                                                \
    (const Tensor& grad_input, const Tensor& grad_out, const Tensor& target, const Tensor& weight,                    \
     const Tensor& total_weight, const NllLossParams& params),                                                        \
    (grad_input, grad_out, target, weight, total_weight, params), "nll_loss_backward",                                \
    (&grad_out, &target, &weight))

// The optional kernels: Backend defines each to raise "<name>: not implemented for device
// <device> yet".
#define BRISK_BACKEND_OPTIONAL_KERNELS(X) \
  BRISK_BACKEND_CONV_POOL_KERNELS(X)      \
  BRISK_BACKEND_BATCH_NORM_KERNELS(X)     \
  BRISK_BACKEND_OPTIMIZER_KERNELS(X)      \
  BRISK_BACKEND_LOSS_KERNELS(X)

// The kernels of one device: what the simulated device forwards to the host's kernels.
#define BRISK_BACKEND_KERNELS(X) \
  BRISK_BACKEND_CORE_KERNELS(X)  \
  BRISK_BACKEND_OPTIONAL_KERNELS(X)

// Every method of Backend but has_batch_norm(), a question rather than a kernel.
#define BRISK_BACKEND_METHODS(X) \
  BRISK_BACKEND_COPY(X)          \
  BRISK_BACKEND_KERNELS(X)

// A backend's declaration of a row's method: BRISK_BACKEND_CORE_KERNELS(BRISK_BACKEND_OVERRIDE)
// in a class body declares every core kernel.
#define BRISK_BACKEND_OVERRIDE(name, params, args, event, inputs) void name params override;
// A row's (args) or (inputs) without the parentheses: `f(BRISK_BACKEND_UNPACK args)`.
#define BRISK_BACKEND_UNPACK(...) __VA_ARGS__

namespace brisk {

class Backend {
 public:
  virtual ~Backend() = default;

#define BRISK_BACKEND_PURE(name, params, args, event, inputs) virtual void name params = 0;
  BRISK_BACKEND_COPY(BRISK_BACKEND_PURE)
  BRISK_BACKEND_CORE_KERNELS(BRISK_BACKEND_PURE)
#undef BRISK_BACKEND_PURE
#define BRISK_BACKEND_DEFAULT(name, params, args, event, inputs) virtual void name params;
  BRISK_BACKEND_OPTIONAL_KERNELS(BRISK_BACKEND_DEFAULT)
#undef BRISK_BACKEND_DEFAULT

  // Whether the batch norm kernels are implemented (BRISK_BACKEND_BATCH_NORM_KERNELS).
  virtual bool has_batch_norm() const { return false; }
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
