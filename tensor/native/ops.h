#pragma once
// Native ops: the tensor library without autograd. Each checks its arguments (errors name
// the op, shapes, dtypes and devices), applies broadcasting and PyTorch's type promotion,
// allocates the output and calls the Backend of the tensors' device.
//
// Users call the differentiable versions in autograd/ops.h; those call these.
#include <array>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "tensor/fused_activation.h"
#include "tensor/nll_loss_params.h"
#include "tensor/op_kinds.h"
#include "tensor/optimizer_step_params.h"
#include "tensor/scalar.h"
#include "tensor/tensor.h"
#include "tensor/window_params.h"

namespace brisk {
class Generator;
}

namespace brisk::native {

// ---- Type promotion (torch.result_type) ----
DType result_type(const Tensor& a, const Tensor& b);
DType result_type(const Tensor& a, Scalar b);
// Over any number of operands (where, clamp, addcmul); undefined tensors are skipped.
DType result_type(const std::vector<Tensor>& tensors, const std::vector<Scalar>& scalars = {});
// The common device of the inputs; errors naming both when they differ.
Device common_device(const char* op, const std::vector<Tensor>& tensors);

// ---- Factories ----
// Dense in options.memory_format_opt() (Contiguous when unset).
Tensor empty(const Shape& shape, TensorOptions options = {});
// Uninitialized memory for exactly the elements that `strides` reach from offset 0.
Tensor empty_strided(const Shape& shape, const Shape& strides, TensorOptions options = {});
// Preserve: t's strides when t is dense, else its suggested format (PyTorch's rule).
Tensor empty_like(const Tensor& t, MemoryFormat format = MemoryFormat::Preserve);
Tensor empty_like(const Tensor& t, TensorOptions options, MemoryFormat format = MemoryFormat::Preserve);
// A contiguous host tensor for copies to and from `copies_to`: page-locked memory from the
// pinned allocator of its device type (pinned_allocator_for in tensor/allocator.h), allocated
// for `copies_to`, or plain host memory when none is registered (no CUDA, the sim device).
Tensor empty_pinned(const Shape& shape, DType dtype, Device copies_to);
Tensor full(const Shape& shape, Scalar value, TensorOptions options = {});
Tensor zeros(const Shape& shape, TensorOptions options = {});
Tensor ones(const Shape& shape, TensorOptions options = {});
Tensor arange(Scalar start, Scalar end, Scalar step, TensorOptions options);
Tensor linspace(Scalar start, Scalar end, int64_t steps, TensorOptions options);
// A tensor over `data`, which it does not copy; `deleter` (may be empty) frees it when the last
// tensor using it goes.
Tensor from_blob(void* data, const Shape& sizes, const Shape& strides, std::function<void(void*)> deleter,
                 TensorOptions options);
// A 0-dim tensor holding `value` with the given dtype.
Tensor scalar_tensor(Scalar value, DType dtype, Device device = kCPU);
// Copies host data of type T into a new tensor of `shape` (its numel must match).
template <typename T>
Tensor from_vector(const std::vector<T>& values, const Shape& shape, TensorOptions options);

// ---- Views (share storage) ----
Tensor as_strided(const Tensor& t, const Shape& sizes, const Shape& strides, int64_t offset);
Tensor view(const Tensor& t, const Shape& shape);     // errors if strides do not allow it
Tensor reshape(const Tensor& t, const Shape& shape);  // view when possible, else copy
Tensor permute(const Tensor& t, const std::vector<int64_t>& dims);
Tensor transpose(const Tensor& t, int64_t dim0, int64_t dim1);
Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length);
Tensor slice(const Tensor& t, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step);
Tensor select(const Tensor& t, int64_t dim, int64_t index);
Tensor expand(const Tensor& t, const Shape& shape);
Tensor squeeze(const Tensor& t, std::optional<int64_t> dim);
Tensor unsqueeze(const Tensor& t, int64_t dim);
Tensor flatten(const Tensor& t, int64_t start_dim, int64_t end_dim);
// A tensor sharing storage and metadata but no autograd state.
Tensor alias(const Tensor& t);

// ---- Copies and conversion ----
Tensor& copy_(Tensor& dst, const Tensor& src, bool non_blocking = false);
Tensor contiguous(const Tensor& t, MemoryFormat format = MemoryFormat::Contiguous);
Tensor clone(const Tensor& t, MemoryFormat format = MemoryFormat::Preserve);
// Keeps t's layout (empty_like's Preserve); t itself when nothing changes.
Tensor to(const Tensor& t, Device device, DType dtype, bool non_blocking = false);

// ---- Elementwise ----
// Clamp, PowScalar and RPowScalar get their numbers as float64 params; on a bool/integral x
// a whole number counts as an int and any other as a float for type promotion. clamp() and
// binary(Pow, x, Scalar) below promote by the Scalar's own kind, exactly as PyTorch.
Tensor unary(UnaryOp op, const Tensor& x, OpParams params = {});
Tensor& unary_(UnaryOp op, Tensor& self, OpParams params = {});
// torch.clamp with number bounds (at least one given).
Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max);
// Add and Sub read their alpha from params.a, which the default params leave at 0: pass
// OpParams{1.0} for a + b and a - b (binary(Sub, a, b) alone is a - 0 * b).
Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b, OpParams params = {});
Tensor binary(BinaryOp op, const Tensor& a, Scalar b, OpParams params = {});
Tensor binary(BinaryOp op, Scalar a, const Tensor& b, OpParams params = {});
// Lerp: start + params.a * (end - start), start and end of one floating point dtype.
// self = op(self, other); the result dtype must be castable to self's dtype.
Tensor& binary_(BinaryOp op, Tensor& self, const Tensor& other, OpParams params = {});
Tensor& binary_(BinaryOp op, Tensor& self, Scalar other, OpParams params = {});
Tensor ternary(TernaryOp op, const Tensor& a, const Tensor& b, const Tensor& c, OpParams params = {});
Tensor& ternary_(TernaryOp op, Tensor& self, const Tensor& b, const Tensor& c, OpParams params = {});
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
Tensor masked_fill(const Tensor& t, const Tensor& mask, Scalar value);
Tensor& masked_fill_(Tensor& self, const Tensor& mask, Scalar value);
Tensor& fill_(Tensor& self, Scalar value);

// ---- Reductions; empty dims = all dims ----
Tensor reduce(ReduceOp op, const Tensor& x, const std::vector<int64_t>& dims, bool keepdim, OpParams params = {});
// values and int64 indices along one dim (max or min).
std::pair<Tensor, Tensor> max_with_indices(const Tensor& x, int64_t dim, bool keepdim);
std::pair<Tensor, Tensor> min_with_indices(const Tensor& x, int64_t dim, bool keepdim);
Tensor argmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim);
Tensor argmin(const Tensor& x, std::optional<int64_t> dim, bool keepdim);
Tensor softmax(const Tensor& x, int64_t dim, bool log);
Tensor softmax_backward(const Tensor& grad_out, const Tensor& out, int64_t dim, bool log);
// Sums `t` down to `shape` (the inverse of broadcasting `shape` to t's shape).
Tensor sum_to(const Tensor& t, const Shape& shape);

// ---- Linear algebra ----
Tensor matmul(const Tensor& a, const Tensor& b);  // torch.matmul semantics, 1-D to N-D
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor addmm(const Tensor& bias, const Tensor& a, const Tensor& b, Scalar beta = 1, Scalar alpha = 1);

// ---- Convolution and pooling (tensor/native/conv.cc, pool.cc) ----
// Inputs are NCHW [N, C, H, W], or CHW [C, H, W] for one unbatched image (the result is then
// unbatched too), float32 or float64. Geometry errors name the input shape, kernel, stride,
// padding and dilation.
// weight [OC, C / groups, KH, KW]; bias [OC] or undefined.
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, const Conv2dParams& params);
// The gradients {input, weight, bias} of conv2d; only those with their `need` flag set are
// computed (the others are undefined).
std::array<Tensor, 3> conv2d_backward(const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                                      const Conv2dParams& params, std::array<bool, 3> need);
// Pooling keeps a 4-D input's channels_last layout (suggest_memory_format) in its output,
// indices and gradient, as PyTorch; other inputs are computed contiguous.
// Values and int64 indices (h * W + w within each input plane) of each window's maximum.
std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const Pool2dParams& params);
Tensor max_pool2d_backward(const Tensor& grad_out, const Tensor& input, const Tensor& indices);
Tensor avg_pool2d(const Tensor& input, const Pool2dParams& params);
Tensor avg_pool2d_backward(const Tensor& grad_out, const Tensor& input, const Pool2dParams& params);
Tensor adaptive_avg_pool2d(const Tensor& input, Pair output_size);
Tensor adaptive_avg_pool2d_backward(const Tensor& grad_out, const Tensor& input);

// ---- Batch normalization (tensor/native/batch_norm.cc): PyTorch's native_batch_norm ----
// input [N, C, *]; weight, bias, running_mean and running_var [C] or undefined, on input's
// device, of input's float dtype, or float32 for a bfloat16/float16 input (PyTorch's
// mixed-dtype batch norm); save_mean, save_invstd and the weight and bias gradients have
// that dtype too. A 4-D channels_last input (strides (H*W*C, 1, W*C, C)) keeps its layout:
// the output and grad_input are channels_last too; any other input is made contiguous.
// Backend::batch_norm (tensor/backend.h) says what is computed, the fused activation
// included; the shape checks are nn::functional::batch_norm's.
// Whether the device of `input` has the kernels and they take these operands (every defined
// [C] tensor of the dtype above); otherwise the caller composes the op.
bool has_batch_norm_kernel(const Tensor& input, const std::vector<Tensor>& channel_tensors);
// {out, save_mean, save_invstd}. num_batches_tracked (int64 [] on input's device, or undefined)
// is incremented by one with `training`, by the kernels themselves.
std::array<Tensor, 3> batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                                 const Tensor& running_mean, const Tensor& running_var, bool training, double momentum,
                                 double eps, FusedActivation activation = FusedActivation::None,
                                 const Tensor& num_batches_tracked = Tensor());
// {grad_input, grad_weight, grad_bias} where `need` asks (the others undefined). `out` is
// batch_norm's output (read for Relu's mask), `bias` its bias (read for Gelu's input).
std::array<Tensor, 3> batch_norm_backward(const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                                          const Tensor& bias, const Tensor& out, const Tensor& save_mean,
                                          const Tensor& save_invstd, bool training, FusedActivation activation,
                                          std::array<bool, 3> need);

// ---- Fused optimizer updates (tensor/native/optimizer_step.cc) ----
// One pass per parameter, in place on param and the state buffers. All tensors share the
// param's shape, float dtype and device; a buffer the options do not use may be undefined
// (momentum_buffer without momentum, max_exp_avg_sq without amsgrad).
void sgd_step_(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer, const SgdStepParams& params);
void adam_step_(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                const Tensor& max_exp_avg_sq, const AdamStepParams& params);
// GradScaler's unscale_ of one gradient in one pass, without a host synchronization: grad *=
// inv_scale, and found_inf (float32, one element, on grad's device) set to 1 when grad held an
// inf or NaN (left as it was otherwise). grad: float32 or float64.
void non_finite_check_and_unscale_(const Tensor& grad, const Tensor& found_inf, float inv_scale);
// The same updates over lists of parameters of one dtype on one device (optim's step groups
// them so), index i of every list belonging to params[i]; a buffer list the options do not use
// is empty. One backend call updates every tensor whose operands are laid out as its dense
// parameter (on CUDA one launch per chunk of tensors, PyTorch's multi_tensor_apply); any other
// goes through the per-tensor op above. Bit for bit the per-tensor ops' results.
void multi_tensor_sgd_step_(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                            const std::vector<Tensor>& momentum_buffers, const SgdStepParams& options);
void multi_tensor_adam_step_(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                             const std::vector<Tensor>& exp_avgs, const std::vector<Tensor>& exp_avg_sqs,
                             const std::vector<Tensor>& max_exp_avg_sqs, const AdamStepParams& options);
// grads: of one dtype on one device, as found_inf.
void multi_tensor_non_finite_check_and_unscale_(const std::vector<Tensor>& grads, const Tensor& found_inf,
                                                float inv_scale);

// ---- Fused class-index nll_loss (tensor/native/nll_loss.cc) ----
// Backend::nll_loss (tensor/backend.h) says what is computed; nn::functional::nll_loss checks
// the shapes under the caller's name. input [N, C, *] floating point, target int64 [N, *],
// weight undefined or [C] (converted to the input's dtype), record undefined or the int64 [4]
// target record the forward folds its bad targets into (nn/functional/class_targets.h).
// Returns {loss (the target's shape for LossReduction::None, else []), total_weight}.
std::array<Tensor, 2> nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, const Tensor& record,
                               const NllLossParams& params);
// The gradient of nll_loss's input (of `input_sizes`, grad_out's dtype) from the forward's
// target, weight and total_weight.
Tensor nll_loss_backward(const Tensor& grad_out, const Shape& input_sizes, const Tensor& target, const Tensor& weight,
                         const Tensor& total_weight, const NllLossParams& params);

// ---- Joining and indexing ----
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim);
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim);
std::vector<Tensor> split(const Tensor& t, const std::vector<int64_t>& sizes, int64_t dim);  // views
Tensor index_select(const Tensor& t, int64_t dim, const Tensor& index);
Tensor gather(const Tensor& t, int64_t dim, const Tensor& index);
Tensor scatter_add(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src);
Tensor& scatter_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor one_hot(const Tensor& indices, int64_t num_classes = -1);

// ---- Random, from a Generator (the default one when null) ----
Tensor& uniform_(Tensor& self, double from, double to, Generator* gen);
Tensor& normal_(Tensor& self, double mean, double std, Generator* gen);
Tensor& bernoulli_(Tensor& self, double p, Generator* gen);
// Each element is 1 with the probability given by `p`'s element at the same place.
Tensor bernoulli(const Tensor& p, Generator* gen);
Tensor randperm(int64_t n, Generator* gen, TensorOptions options = kInt64);
// Integers uniform in [low, high), stored as options.dtype(); the bounds must fit that dtype.
Tensor randint(int64_t low, int64_t high, const Shape& shape, TensorOptions options, Generator* gen);

// ---- Comparison and printing ----
bool equal(const Tensor& a, const Tensor& b);
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8);
std::string to_string(const Tensor& t);

}  // namespace brisk::native
