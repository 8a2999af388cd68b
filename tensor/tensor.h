#pragma once
// Tensor: a strided view (shape, strides, offset, dtype) of a shared Storage.
//
// Copying a Tensor copies a handle: both refer to the same data and autograd state,
// as in PyTorch. Views (view, permute, narrow, expand, ...) share the Storage.
//
// The accessors are defined in tensor/tensor.cc. The math methods record autograd
// history and are defined in autograd/ (link //autograd to use them); the same ops
// as free functions are declared in autograd/ops.h.
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensor/device.h"
#include "tensor/dtype.h"
#include "tensor/error.h"
#include "tensor/int_array_ref.h"
#include "tensor/memory_format.h"
#include "tensor/op_table.h"
#include "tensor/scalar.h"
#include "tensor/shape.h"
#include "tensor/storage.h"

namespace brisk {

// libtorch code writes torch::optional (c10's std::optional).
using std::nullopt;
using std::optional;

namespace autograd {
class Node;
}
namespace indexing {
class TensorIndex;  // tensor/indexing.h
}
template <typename T, size_t N>
class TensorAccessor;  // tensor/accessor.h
struct AutogradMeta;
class Generator;
class Tensor;

// Options for factories: `zeros({2, 3}, TensorOptions().dtype(kFloat64).requires_grad(true))`.
// A DType or a Device converts to options on its own: `ones({4}, kInt64)`.
class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(DType d) : dtype_(d) {}
  TensorOptions(Device d) : device_(d) {}
  TensorOptions(const char* device) : device_(Device(device)) {}

  DType dtype() const { return dtype_; }
  Device device() const { return device_; }
  bool requires_grad() const { return requires_grad_; }
  // The layout empty() gives a new tensor; unset is Contiguous (libtorch's memory_format_opt).
  std::optional<MemoryFormat> memory_format_opt() const { return memory_format_; }
  // clang-format off
  TensorOptions dtype(DType d) const { auto o = *this; o.dtype_ = d; return o; }
  TensorOptions device(Device d) const { auto o = *this; o.device_ = d; return o; }
  TensorOptions requires_grad(bool r) const { auto o = *this; o.requires_grad_ = r; return o; }
  TensorOptions memory_format(MemoryFormat f) const { auto o = *this; o.memory_format_ = f; return o; }
  // clang-format on

 private:
  DType dtype_ = kFloat32;
  Device device_ = kCPU;
  bool requires_grad_ = false;
  std::optional<MemoryFormat> memory_format_;
};

// TensorOptions().requires_grad(r), as libtorch spells it: tensor({1.0, 2.0}, requires_grad()).
inline TensorOptions requires_grad(bool requires_grad = true) { return TensorOptions().requires_grad(requires_grad); }

struct TensorImpl {
  TensorImpl(std::shared_ptr<Storage> storage, Shape sizes, Shape strides, int64_t offset, DType dtype);
  ~TensorImpl();

  std::shared_ptr<Storage> storage;
  Shape sizes;
  Shape strides;
  int64_t offset;  // in elements
  DType dtype;
  // Null until the tensor takes part in autograd.
  std::unique_ptr<AutogradMeta> autograd;
};

// A hook on a tensor's gradient: may return a replacement gradient or an undefined
// Tensor to keep it.
using GradHook = std::function<Tensor(const Tensor& grad)>;
// Runs on a leaf after its .grad has been accumulated for this backward pass.
using PostAccumulateGradHook = std::function<void(Tensor& param)>;

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  // ---- Metadata (tensor/tensor.cc) ----
  bool defined() const { return impl_ != nullptr; }
  const Shape& sizes() const;
  const Shape& shape() const { return sizes(); }
  const Shape& strides() const;
  int64_t size(int64_t dim) const;
  int64_t stride(int64_t dim) const;
  int64_t dim() const;
  int64_t numel() const;
  int64_t offset() const;
  DType dtype() const;
  // libtorch's name for dtype().
  DType scalar_type() const { return dtype(); }
  Device device() const;
  // Its dtype and device, for making tensors like it: empty(shape, t.options()).
  TensorOptions options() const { return TensorOptions(dtype()).device(device()); }
  bool is_cuda() const { return device().is_cuda(); }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_floating_point() const { return brisk::is_floating_point(dtype()); }
  // Dense in `format` (tensor/memory_format.h): is_contiguous(MemoryFormat::ChannelsLast).
  bool is_contiguous(MemoryFormat format = MemoryFormat::Contiguous) const;
  // ChannelsLast when the strides order a 4-D tensor's dims as N, H, W, C, as PyTorch.
  MemoryFormat suggest_memory_format() const;
  size_t element_size() const { return brisk::element_size(dtype()); }
  size_t nbytes() const { return numel() * element_size(); }
  const std::shared_ptr<Storage>& storage() const;
  TensorImpl* impl() const { return impl_.get(); }
  bool is_same(const Tensor& other) const { return impl_ == other.impl_; }
  // Handles sharing this tensor: autograd reuses a gradient buffer in place only when no one
  // else can see it.
  long use_count() const { return impl_.use_count(); }
  // A handle that does not keep the tensor alive (retain_grad's hook lives in the graph,
  // which the tensor itself keeps alive).
  std::weak_ptr<TensorImpl> weak_impl() const { return impl_; }
  // Address of the first element. Typed access checks the dtype.
  void* raw_data() const;
  template <typename T>
  T* data_ptr() const;
  // The value of a one-element tensor (copied to the host if needed). item() and to_vector()
  // exist for the C++ type of every dtype (dtype_of), bfloat16 and float16 included.
  template <typename T>
  T item() const;
  // All elements in row-major order, converted to T, on the host.
  template <typename T>
  std::vector<T> to_vector() const;
  // a[i][j] access to the elements of a CPU tensor of dtype T with N dims (tensor/accessor.h,
  // which defines it); it points into the tensor, so not on a temporary.
  template <typename T, size_t N>
  TensorAccessor<T, N> accessor() const&;
  template <typename T, size_t N>
  TensorAccessor<T, N> accessor() && = delete;
  // "[2, 3] float32 cpu": for error messages.
  std::string describe() const;
  // PyTorch's print format: tensor([[1., 2.], ...], dtype=float64).
  std::string str() const;

  // ---- Autograd state (tensor/tensor.cc) ----
  bool requires_grad() const;
  // Leaves only; returns *this.
  Tensor& requires_grad_(bool requires_grad = true);
  bool is_leaf() const;
  // The accumulated gradient of a leaf (undefined before the first backward).
  Tensor grad() const;
  void set_grad(const Tensor& grad) const;
  Tensor& mutable_grad() const;
  const std::shared_ptr<autograd::Node>& grad_fn() const;
  uint32_t output_nr() const;
  uint32_t version() const;
  void bump_version() const;
  AutogradMeta& autograd_meta() const;  // creates it if absent
  AutogradMeta* autograd_meta_if_exists() const;
  // Points this tensor at new_data's storage, sizes, strides, offset and dtype, keeping its
  // identity and autograd state (requires_grad, .grad, hooks): every handle to this tensor
  // sees the new data (torch's `param.data = new_data`). Leaves only, as history recorded
  // against the old data would no longer describe it. How nn::Module::to moves parameters.
  void set_data(const Tensor& new_data) const;

  // ---- Autograd (autograd/) ----
  void backward(const Tensor& gradient = Tensor(), bool retain_graph = false, bool create_graph = false) const;
  // Shares the data, drops the history.
  Tensor detach() const;
  Tensor& detach_();
  // Keeps .grad of a non-leaf after backward.
  void retain_grad() const;
  bool retains_grad() const;
  // Returns a handle usable with remove_hook().
  size_t register_hook(GradHook hook) const;
  void remove_hook(size_t handle) const;
  size_t register_post_accumulate_grad_hook(PostAccumulateGradHook hook) const;

  // ---- Views (share storage; autograd/) ----
  Tensor view(const Shape& shape) const;
  Tensor reshape(const Shape& shape) const;
  Tensor permute(const std::vector<int64_t>& dims) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor t() const;  // 2-D transpose
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor slice(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step = 1) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor operator[](int64_t index) const { return select(0, index); }
  Tensor expand(const Shape& shape) const;
  Tensor expand_as(const Tensor& other) const { return expand(other.sizes()); }
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  // This tensor when it is dense in `format`, else a copy that is.
  Tensor contiguous(MemoryFormat format = MemoryFormat::Contiguous) const;
  // A copy; Preserve keeps the strides of a dense tensor (PyTorch's default).
  Tensor clone(MemoryFormat format = MemoryFormat::Preserve) const;

  // ---- Conversion (autograd/) ----
  Tensor to(DType dtype) const;
  // x.to(memory_format=torch.channels_last): contiguous(format), this tensor if already so.
  Tensor to(MemoryFormat memory_format) const;
  Tensor to(Device device, bool non_blocking = false) const;
  Tensor to(Device device, DType dtype, bool non_blocking = false) const;
  Tensor cpu() const { return to(kCPU); }
  Tensor cuda(int index = 0) const { return to(cuda_device(index)); }

  // ---- Elementwise (autograd/) ----
  Tensor add(const Tensor& other, Scalar alpha = 1) const;
  Tensor add(Scalar other) const;
  Tensor sub(const Tensor& other, Scalar alpha = 1) const;
  Tensor sub(Scalar other) const;
  Tensor mul(const Tensor& other) const;
  Tensor mul(Scalar other) const;
  Tensor div(const Tensor& other) const;
  Tensor div(Scalar other) const;
  Tensor pow(const Tensor& exponent) const;
  Tensor pow(Scalar exponent) const;
  Tensor neg() const;
  // With the sign of the divisor (Python's %) and of the dividend (C's fmod).
  Tensor remainder(const Tensor& other) const;
  Tensor remainder(Scalar other) const;
  Tensor fmod(const Tensor& other) const;
  Tensor fmod(Scalar other) const;
  // abs(), exp(), ..., relu(), sigmoid(), ...: the math rows of tensor/op_table.h and its
  // activation rows that take no numbers; abs_(), exp_(), ..., relu_(), ...: the same in place.
#define BRISK_UNARY_ROW_METHODS(Op, name, ...) \
  Tensor name() const;                         \
  Tensor& name##_();
  BRISK_UNARY_MATH_OPS(BRISK_UNARY_ROW_METHODS)
  BRISK_ACTIVATION_OPS(BRISK_UNARY_ROW_METHODS)
#undef BRISK_UNARY_ROW_METHODS
  Tensor gelu(const std::string& approximate = "none") const;
  Tensor clamp(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  Tensor clamp_min(Scalar min) const { return clamp(min); }
  Tensor clamp_max(Scalar max) const { return clamp(std::nullopt, max); }
  Tensor clamp(const Tensor& min, const Tensor& max) const;
  Tensor maximum(const Tensor& other) const;
  Tensor minimum(const Tensor& other) const;
  Tensor lerp(const Tensor& end, Scalar weight) const;
  Tensor masked_fill(const Tensor& mask, Scalar value) const;
  // The elements where the bool mask (broadcast with this tensor) is true, as a 1-D tensor.
  Tensor masked_select(const Tensor& mask) const;
  // eq(other), ..., logical_or(other): the comparison rows of tensor/op_table.h.
#define BRISK_COMPARISON_METHOD(Op, name, ...) \
  Tensor name(const Tensor& other) const;      \
  Tensor name(Scalar other) const;
  BRISK_COMPARISON_OPS(BRISK_COMPARISON_METHOD)
#undef BRISK_COMPARISON_METHOD
  Tensor logical_not() const;

  // ---- In place (autograd/): bump the version counter, return *this ----
  Tensor& add_(const Tensor& other, Scalar alpha = 1);
  Tensor& add_(Scalar other);
  Tensor& sub_(const Tensor& other, Scalar alpha = 1);
  Tensor& sub_(Scalar other);
  Tensor& mul_(const Tensor& other);
  Tensor& mul_(Scalar other);
  Tensor& div_(const Tensor& other);
  Tensor& div_(Scalar other);
  Tensor& pow_(Scalar exponent);
  Tensor& neg_();
  Tensor& clamp_(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
  // self += value * a * b, self += value * a / b, self += weight * (end - self): the
  // optimizers' update steps.
  Tensor& addcmul_(const Tensor& a, const Tensor& b, Scalar value = 1);
  Tensor& addcdiv_(const Tensor& a, const Tensor& b, Scalar value = 1);
  Tensor& lerp_(const Tensor& end, Scalar weight);
  Tensor& masked_fill_(const Tensor& mask, Scalar value);
  Tensor& fill_(Scalar value);
  Tensor& zero_();
  // Copies src (broadcast to this shape, any dtype/device) into this tensor.
  Tensor& copy_(const Tensor& src, bool non_blocking = false);

  // ---- Reductions (autograd/). dims: one dim, a braced list or a vector; none or {} = all dims. ----
  Tensor sum(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor mean(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor prod(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor amax(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor amin(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor max() const;
  Tensor min() const;
  std::pair<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;  // values, indices
  std::pair<Tensor, Tensor> min(int64_t dim, bool keepdim = false) const;
  Tensor argmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor argmin(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor var(IntArrayRef dims = {}, int64_t correction = 1, bool keepdim = false) const;
  Tensor std(IntArrayRef dims = {}, int64_t correction = 1, bool keepdim = false) const;
  // libtorch's all-dims form, x.var(false): unbiased (correction 1) or not (0). Templates, so
  // that x.var(1) still means dim 1.
  template <typename Bool, std::enable_if_t<std::is_same_v<Bool, bool>, int> = 0>
  Tensor var(Bool unbiased) const {
    return var({}, unbiased ? 1 : 0);
  }
  template <typename Bool, std::enable_if_t<std::is_same_v<Bool, bool>, int> = 0>
  Tensor std(Bool unbiased) const {
    return std({}, unbiased ? 1 : 0);
  }
  Tensor logsumexp(IntArrayRef dims, bool keepdim = false) const;
  Tensor norm(double p = 2.0, IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor softmax(int64_t dim) const;
  Tensor log_softmax(int64_t dim) const;

  // ---- Linear algebra and indexing (autograd/) ----
  Tensor matmul(const Tensor& other) const;
  Tensor mm(const Tensor& other) const;
  Tensor bmm(const Tensor& other) const;
  Tensor index_select(int64_t dim, const Tensor& index) const;
  Tensor gather(int64_t dim, const Tensor& index) const;
  Tensor scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const;
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0) const;
  std::vector<Tensor> split(const std::vector<int64_t>& split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  // x.index({Slice(1, None), "...", 0}): PyTorch's x[1:, ..., 0] with the indices of
  // tensor/indexing.h (include it, or brisk/brisk.h). Views unless an index tensor is given.
  Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
  Tensor index(const std::vector<indexing::TensorIndex>& indices) const;
  // x[indices] = values (broadcast) or = value, written into this tensor; returns *this.
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Tensor& values);
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, Scalar value);
  Tensor& index_put_(const std::vector<indexing::TensorIndex>& indices, const Tensor& values);
  Tensor& index_put_(const std::vector<indexing::TensorIndex>& indices, Scalar value);

  // ---- Random, in place (tensor/native) ----
  Tensor& uniform_(double from = 0.0, double to = 1.0, Generator* generator = nullptr);
  Tensor& normal_(double mean = 0.0, double std = 1.0, Generator* generator = nullptr);
  Tensor& bernoulli_(double p = 0.5, Generator* generator = nullptr);

 private:
  std::shared_ptr<TensorImpl> impl_;
};

// Operators follow PyTorch: arithmetic promotes, comparisons return bool tensors.
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, Scalar b);
Tensor operator-(const Tensor& a, Scalar b);
Tensor operator*(const Tensor& a, Scalar b);
Tensor operator/(const Tensor& a, Scalar b);
Tensor operator+(Scalar a, const Tensor& b);
Tensor operator-(Scalar a, const Tensor& b);
Tensor operator*(Scalar a, const Tensor& b);
Tensor operator/(Scalar a, const Tensor& b);
Tensor operator-(const Tensor& a);
// remainder, as Python's % and PyTorch's.
Tensor operator%(const Tensor& a, const Tensor& b);
Tensor operator%(const Tensor& a, Scalar b);
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, Scalar b);
Tensor operator!=(const Tensor& a, Scalar b);
Tensor operator<(const Tensor& a, Scalar b);
Tensor operator<=(const Tensor& a, Scalar b);
Tensor operator>(const Tensor& a, Scalar b);
Tensor operator>=(const Tensor& a, Scalar b);
Tensor& operator+=(Tensor& a, const Tensor& b);
Tensor& operator-=(Tensor& a, const Tensor& b);
Tensor& operator*=(Tensor& a, const Tensor& b);
Tensor& operator/=(Tensor& a, const Tensor& b);
Tensor& operator+=(Tensor& a, Scalar b);
Tensor& operator-=(Tensor& a, Scalar b);
Tensor& operator*=(Tensor& a, Scalar b);
Tensor& operator/=(Tensor& a, Scalar b);

std::ostream& operator<<(std::ostream& os, const Tensor& t);

}  // namespace brisk
