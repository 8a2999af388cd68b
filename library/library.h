#pragma once
// Ops of an extension, declared once and given a kernel per device type, in the shape of
// PyTorch's TORCH_LIBRARY / TORCH_LIBRARY_IMPL (docs/extending.md (c)):
//
//   BRISK_LIBRARY(myext, m) {
//     m.def("scaled_silu(Tensor x, Tensor a) -> Tensor");
//     m.def("scaled_silu_backward(Tensor grad, Tensor x, Tensor a) -> (Tensor, Tensor)");
//   }
//   // Each in the translation unit that has the kernels (the CUDA one in a .cu file):
//   BRISK_LIBRARY_IMPL(myext, CPU, m) { m.impl("scaled_silu", &scaled_silu_cpu); }
//   BRISK_LIBRARY_IMPL(myext, CUDA, m) { m.impl("scaled_silu", &scaled_silu_cuda); }
//   BRISK_LIBRARY_IMPL(myext, Sim, m) { m.impl("scaled_silu", library::sim_kernel_from_cpu(&scaled_silu_cpu)); }
//
//   static const auto op = library::find_op<Tensor(const Tensor&, const Tensor&)>("myext::scaled_silu");
//   Tensor y = op(x, a);
//
// Schemas: library/schema.h. Kernels are plain functions whose C++ types match the schema
// (library/signature.h); each is checked once, when both it and the def are registered, and
// the signature of each find_op when it is called.
//
// A call runs the kernel of the device type of its tensor arguments, after checking, in one
// place for every op, that they are on one device and that the floating-point ones share a
// dtype; it raises "myext::scaled_silu: no kernel for device sim:0 (kernels: CPU, CUDA)" for a
// device type with no kernel. Each call is a profiler event (Category::Op) named
// "myext::scaled_silu", with its inputs' shapes and dtypes. A registered op records no
// gradient: its differentiable form is an autograd::Function whose forward and backward call
// ops (a call with an argument that requires grad, in grad mode, is an error).
//
// Registration happens at static initialization, in any order of translation units, and never
// throws: what is wrong (a kernel that does not match the schema, a second kernel for a device
// type, two different defs of one op) is raised by each find_op of the op. find_op and calls
// are thread-safe.
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "library/op.h"
#include "library/registry.h"
#include "library/signature.h"
#include "library/sim_kernel.h"
#include "tensor/device.h"

namespace brisk::library {

// What BRISK_LIBRARY and BRISK_LIBRARY_IMPL hand their block as `m`.
class Library {
 public:
  // The ops of namespace `ns` (BRISK_LIBRARY): def only.
  explicit Library(std::string ns) : ns_(std::move(ns)) {}
  // Kernels of namespace `ns`'s ops for `device_type` (BRISK_LIBRARY_IMPL): impl only.
  Library(std::string ns, DeviceType device_type) : ns_(std::move(ns)), device_type_(device_type), impls_(true) {}

  // Declares an op: "name(Tensor x, float s) -> Tensor" (library/schema.h).
  Library& def(std::string_view schema) {
    if (impls_) {
      detail::add_error(ns_, schema.substr(0, schema.find('(')),
                        "m.def in BRISK_LIBRARY_IMPL: declare ops in BRISK_LIBRARY(" + ns_ + ", m)");
    } else {
      detail::define(ns_, schema);
    }
    return *this;
  }

  // Registers `kernel` as op `name`'s kernel for this block's device type.
  template <typename R, typename... P>
  Library& impl(std::string_view name, R (*kernel)(P...)) {
    return add(name, {reinterpret_cast<detail::ErasedFunction>(kernel),
                      reinterpret_cast<detail::ErasedFunction>(&detail::invoke_kernel<R, P...>),
                      detail::signature_of<R, P...>(), false});
  }
  // A CPU kernel adapted to the simulated device (library/sim_kernel.h); in a Sim block only.
  template <typename R, typename... P>
  Library& impl(std::string_view name, SimKernelFromCpu<R, P...> kernel) {
    return add(name, {reinterpret_cast<detail::ErasedFunction>(kernel.cpu_kernel),
                      reinterpret_cast<detail::ErasedFunction>(&detail::invoke_cpu_kernel_on_sim<R, P...>),
                      detail::signature_of<R, P...>(), true});
  }
  // A lambda without captures, as the function it converts to.
  template <typename Lambda, typename = std::enable_if_t<std::is_class_v<Lambda>>,
            typename = decltype(+std::declval<Lambda>())>
  Library& impl(std::string_view name, Lambda kernel) {
    return impl(name, +kernel);
  }

 private:
  Library& add(std::string_view name, detail::Kernel kernel) {
    if (impls_) {
      detail::add_kernel(ns_, name, device_type_, std::move(kernel));
    } else {
      detail::add_error(
          ns_, name, "m.impl in BRISK_LIBRARY: register kernels in BRISK_LIBRARY_IMPL(" + ns_ + ", CPU|CUDA|Sim, m)");
    }
    return *this;
  }

  std::string ns_;
  DeviceType device_type_ = DeviceType::CPU;
  bool impls_ = false;
};

// The op "ns::name", callable as Signature, e.g. Tensor(const Tensor&, double). Raises
// brisk::Error for an unknown op (naming close matches), for what registration found wrong,
// and when Signature does not match the schema (naming the argument, its position, its schema
// type and its C++ type). Keep the result (a static) rather than looking up each call.
template <typename Signature>
Op<Signature> find_op(std::string_view qualified_name);

namespace detail {
template <typename Signature>
struct LookupSignature;
template <typename R, typename... Args>
struct LookupSignature<R(Args...)> {
  static library::Signature get() { return signature_of<R, Args...>(); }
};

// Runs a BRISK_LIBRARY / BRISK_LIBRARY_IMPL block at static initialization.
struct StaticRegistration {
  StaticRegistration(Library library, void (*block)(Library&)) { block(library); }
};
}  // namespace detail

template <typename Signature>
Op<Signature> find_op(std::string_view qualified_name) {
  return Op<Signature>(detail::lookup(qualified_name, detail::LookupSignature<Signature>::get()));
}

}  // namespace brisk::library

// BRISK_LIBRARY(ns, m) { m.def("..."); }: declares the ops of namespace `ns` (at global scope).
#define BRISK_LIBRARY(ns, m)                                                                     \
  static void brisk_library_def_##ns(::brisk::library::Library&);                                \
  static const ::brisk::library::detail::StaticRegistration brisk_library_def_registration_##ns( \
      ::brisk::library::Library(#ns), &brisk_library_def_##ns);                                  \
  void brisk_library_def_##ns(::brisk::library::Library& m)

// BRISK_LIBRARY_IMPL(ns, CPU|CUDA|Sim, m) { m.impl("name", &kernel); }: registers kernels of
// `ns`'s ops for one device type (at global scope).
#define BRISK_LIBRARY_IMPL(ns, device_type, m)                                                                     \
  static void brisk_library_impl_##ns##_##device_type(::brisk::library::Library&);                                 \
  static const ::brisk::library::detail::StaticRegistration brisk_library_impl_registration_##ns##_##device_type(  \
      ::brisk::library::Library(#ns, ::brisk::DeviceType::device_type), &brisk_library_impl_##ns##_##device_type); \
  void brisk_library_impl_##ns##_##device_type(::brisk::library::Library& m)
