#pragma once
// The C++ side of an op: which C++ types stand for each schema type, the description of a
// kernel's or a lookup's C++ signature that the registry checks against the schema, and the
// one call through which every kernel runs.
//
//   schema type   C++ parameter                                     passed to kernels as
//   Tensor        const Tensor& or Tensor                           const Tensor&
//   Tensor[]      const std::vector<Tensor>& or std::vector<Tensor> const std::vector<Tensor>&
//   int           int64_t                                           int64_t
//   float         double                                            double
//   bool          bool                                              bool
//   str           const std::string& or std::string                 const std::string&
//   int[]         IntArrayRef, const std::vector<int64_t>& or ...   IntArrayRef
//
// Returns: Tensor, std::vector<Tensor> (Tensor[]) or std::tuple<Tensor, ...> ((Tensor, ...)).
// Two signatures that pass the check against one schema pass their arguments as the same
// "passed as" types, so a kernel registered with one is called through a lookup of the other.
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "library/schema.h"
#include "tensor/int_array_ref.h"
#include "tensor/tensor.h"

namespace brisk::library {

struct CppArgument {
  ArgType type;
  const char* cpp_name;  // "const Tensor&", "int64_t", ...
};

// A C++ function type described for the check against a schema.
struct Signature {
  std::vector<CppArgument> arguments;
  Returns returns;
  std::string cpp_returns;  // "Tensor", "std::tuple<Tensor, Tensor>", ...
};

namespace detail {

template <typename T>
struct ArgTraits {
  static_assert(sizeof(T) == 0,
                "a registered op's parameters are const Tensor& (or Tensor), const std::vector<Tensor>&, int64_t, "
                "double, bool, const std::string& (or std::string) and IntArrayRef (or std::vector<int64_t>): "
                "see library/signature.h");
};
#define BRISK_LIBRARY_ARG(cpp, schema_type)               \
  template <>                                             \
  struct ArgTraits<cpp> {                                 \
    static constexpr ArgType type = ArgType::schema_type; \
    static constexpr const char* name = #cpp;             \
  };
BRISK_LIBRARY_ARG(Tensor, Tensor)
BRISK_LIBRARY_ARG(const Tensor&, Tensor)
BRISK_LIBRARY_ARG(std::vector<Tensor>, TensorList)
BRISK_LIBRARY_ARG(const std::vector<Tensor>&, TensorList)
BRISK_LIBRARY_ARG(int64_t, Int)
BRISK_LIBRARY_ARG(double, Float)
BRISK_LIBRARY_ARG(bool, Bool)
BRISK_LIBRARY_ARG(std::string, Str)
BRISK_LIBRARY_ARG(const std::string&, Str)
BRISK_LIBRARY_ARG(IntArrayRef, IntList)
BRISK_LIBRARY_ARG(std::vector<int64_t>, IntList)
BRISK_LIBRARY_ARG(const std::vector<int64_t>&, IntList)
#undef BRISK_LIBRARY_ARG

// The type an argument of each schema type is passed as between a lookup and a kernel.
template <ArgType>
struct PassedAs;
template <>
struct PassedAs<ArgType::Tensor> {
  using type = const Tensor&;
};
template <>
struct PassedAs<ArgType::TensorList> {
  using type = const std::vector<Tensor>&;
};
template <>
struct PassedAs<ArgType::Int> {
  using type = int64_t;
};
template <>
struct PassedAs<ArgType::Float> {
  using type = double;
};
template <>
struct PassedAs<ArgType::Bool> {
  using type = bool;
};
template <>
struct PassedAs<ArgType::Str> {
  using type = const std::string&;
};
template <>
struct PassedAs<ArgType::IntList> {
  using type = IntArrayRef;
};

template <typename T>
using passed_as_t = typename PassedAs<ArgTraits<T>::type>::type;

// A passed argument as the kernel's parameter type P.
template <typename P>
decltype(auto) to_parameter(passed_as_t<P> value) {
  if constexpr (std::is_same_v<std::decay_t<P>, std::vector<int64_t>>) {
    return value.vec();
  } else {
    return value;
  }
}

template <typename R>
struct ReturnTraits {
  static_assert(sizeof(R) == 0, "a registered op returns Tensor, std::vector<Tensor> or std::tuple<Tensor, ...>: see "
                                "library/signature.h");
};
template <>
struct ReturnTraits<Tensor> {
  static Returns returns() { return {Returns::Kind::Tensor, 0}; }
  static std::string name() { return "Tensor"; }
};
template <>
struct ReturnTraits<std::vector<Tensor>> {
  static Returns returns() { return {Returns::Kind::TensorList, 0}; }
  static std::string name() { return "std::vector<Tensor>"; }
};
template <typename... Ts>
struct ReturnTraits<std::tuple<Ts...>> {
  static_assert((std::is_same_v<Ts, Tensor> && ...), "a registered op's returned tuple holds Tensors only");
  static Returns returns() { return {Returns::Kind::Tuple, sizeof...(Ts)}; }
  static std::string name() {
    std::string s = "std::tuple<";
    for (size_t i = 0; i < sizeof...(Ts); ++i) s += i ? ", Tensor" : "Tensor";
    return s + ">";
  }
};

template <typename R, typename... P>
Signature signature_of() {
  return {
      {CppArgument{ArgTraits<P>::type, ArgTraits<P>::name}...}, ReturnTraits<R>::returns(), ReturnTraits<R>::name()};
}

// Kernels are stored with their types erased, as these two pointers.
using ErasedFunction = void (*)();

// How a lookup of R(Args...) calls a kernel: through a function of this type, given the
// kernel's erased pointer.
template <typename R, typename... Args>
using Invoker = R (*)(ErasedFunction, passed_as_t<Args>...);

// The invoker of a kernel of type R(P...): casts the pointer back and calls it.
template <typename R, typename... P>
R invoke_kernel(ErasedFunction kernel, passed_as_t<P>... args) {
  return reinterpret_cast<R (*)(P...)>(kernel)(to_parameter<P>(args)...);
}

}  // namespace detail
}  // namespace brisk::library
