#include "tensor/tensor.h"

#include "tensor/autograd_meta.h"

namespace brisk {

TensorImpl::TensorImpl(std::shared_ptr<Storage> storage_, Shape sizes_, Shape strides_, int64_t offset_, DType dtype_)
    : storage(std::move(storage_)),
      sizes(std::move(sizes_)),
      strides(std::move(strides_)),
      offset(offset_),
      dtype(dtype_) {}

TensorImpl::~TensorImpl() = default;

namespace {
const TensorImpl& checked(const std::shared_ptr<TensorImpl>& impl) {
  BRISK_CHECK(impl != nullptr, "operation on an undefined tensor");
  return *impl;
}
}  // namespace

const Shape& Tensor::sizes() const { return checked(impl_).sizes; }
const Shape& Tensor::strides() const { return checked(impl_).strides; }
int64_t Tensor::size(int64_t d) const { return sizes()[wrap_dim(d, dim(), "size")]; }
int64_t Tensor::stride(int64_t d) const { return strides()[wrap_dim(d, dim(), "stride")]; }
int64_t Tensor::dim() const { return static_cast<int64_t>(sizes().size()); }
int64_t Tensor::numel() const { return shape_numel(sizes()); }
int64_t Tensor::offset() const { return checked(impl_).offset; }
DType Tensor::dtype() const { return checked(impl_).dtype; }
Device Tensor::device() const { return checked(impl_).storage->device(); }
const std::shared_ptr<Storage>& Tensor::storage() const { return checked(impl_).storage; }

bool Tensor::is_contiguous(MemoryFormat format) const { return is_contiguous_in(sizes(), strides(), format); }

MemoryFormat Tensor::suggest_memory_format() const { return brisk::suggest_memory_format(sizes(), strides()); }

void* Tensor::raw_data() const {
  return static_cast<char*>(storage()->data()) + offset() * static_cast<int64_t>(element_size());
}

template <typename T>
T* Tensor::data_ptr() const {
  BRISK_CHECK(dtype() == dtype_of<T>::value, "data_ptr<{}>() called on a tensor of dtype {}",
              dtype_name(dtype_of<T>::value), dtype());
  return static_cast<T*>(raw_data());
}

#define BRISK_INSTANTIATE_DATA_PTR(name, type, printed, scalar_type) template type* Tensor::data_ptr<type>() const;
BRISK_FORALL_DTYPES(BRISK_INSTANTIATE_DATA_PTR)
#undef BRISK_INSTANTIATE_DATA_PTR

std::string Tensor::describe() const {
  if (!defined()) return "undefined tensor";
  return fmt::format("{} {} {}", sizes(), dtype(), device());
}

bool Tensor::requires_grad() const {
  auto* meta = autograd_meta_if_exists();
  return meta != nullptr && meta->requires_grad;
}

Tensor& Tensor::requires_grad_(bool requires_grad) {
  BRISK_CHECK(is_leaf(), "requires_grad_: only leaf tensors can change requires_grad; use detach() on this {}",
              describe());
  BRISK_CHECK(!requires_grad || is_floating_point(),
              "requires_grad_: only floating point tensors can require gradients, got dtype {}", dtype());
  autograd_meta().requires_grad = requires_grad;
  return *this;
}

bool Tensor::is_leaf() const {
  auto* meta = autograd_meta_if_exists();
  return meta == nullptr || meta->grad_fn == nullptr;
}

Tensor Tensor::grad() const {
  auto* meta = autograd_meta_if_exists();
  return meta ? meta->grad : Tensor();
}

void Tensor::set_grad(const Tensor& grad) const { autograd_meta().grad = grad; }
Tensor& Tensor::mutable_grad() const { return autograd_meta().grad; }

const std::shared_ptr<autograd::Node>& Tensor::grad_fn() const {
  static const std::shared_ptr<autograd::Node> none;
  auto* meta = autograd_meta_if_exists();
  return meta ? meta->grad_fn : none;
}

uint32_t Tensor::output_nr() const {
  auto* meta = autograd_meta_if_exists();
  return meta ? meta->output_nr : 0;
}

uint32_t Tensor::version() const { return storage()->version(); }
void Tensor::bump_version() const { storage()->bump_version(); }

AutogradMeta& Tensor::autograd_meta() const {
  auto& impl = const_cast<TensorImpl&>(checked(impl_));
  if (!impl.autograd) impl.autograd = std::make_unique<AutogradMeta>();
  return *impl.autograd;
}

AutogradMeta* Tensor::autograd_meta_if_exists() const { return checked(impl_).autograd.get(); }

void Tensor::set_data(const Tensor& new_data) const {
  BRISK_CHECK(new_data.defined(), "set_data: the new data of this {} is an undefined tensor", describe());
  BRISK_CHECK(is_leaf(), "set_data: only leaf tensors can change their data, got a non-leaf {}", describe());
  BRISK_CHECK(!requires_grad() || new_data.is_floating_point(),
              "set_data: a tensor that requires grad needs floating point data, got {}", new_data.describe());
  auto& impl = const_cast<TensorImpl&>(checked(impl_));
  const TensorImpl& src = *new_data.impl();
  impl.storage = src.storage;
  impl.sizes = src.sizes;
  impl.strides = src.strides;
  impl.offset = src.offset;
  impl.dtype = src.dtype;
}

}  // namespace brisk
