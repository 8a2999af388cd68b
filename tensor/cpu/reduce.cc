// CpuBackend::reduce: the shared dispatch of tensor/kernels/reduce_dispatch.h over the
// reduction loop of tensor/cpu/reduce_loop.h.
#include <type_traits>

#include "tensor/cpu/cpu_backend.h"
#include "tensor/cpu/reduce_loop.h"
#include "tensor/kernels/reduce_dispatch.h"

namespace brisk::cpu {
namespace {

struct CpuReducer {
  static constexpr bool kFloat32AccumulatesInFloat64 = true;
  const Tensor& out;
  const Tensor& indices;
  const Tensor& in;
  const std::vector<int64_t>& dims;

  template <typename In, typename Op, typename Write>
  void run(const Op& op, std::initializer_list<const Tensor*> outputs, const Write& write) const {
    reduce_loop<In>(iter::make_reduce_shape(in, dims, outputs), op, write);
  }

  template <typename In, typename Op>
  void value(const char* name, const Op& op) const {
    BRISK_CHECK(out.dtype() == dtype_of<kernels::sum_out_t<In>>::value || out.dtype() == in.dtype(),
                "{}: output dtype {} for input dtype {}", name, out.dtype(), in.dtype());
    dispatch_all(out.dtype(), name, [&](auto tag) {
      using Out = typename decltype(tag)::type;
      if constexpr (std::is_same_v<Out, In> || std::is_same_v<Out, kernels::sum_out_t<In>>) {
        run<In>(op, {&out}, [&op](char* const* o, const typename Op::acc_t& acc) {
          *reinterpret_cast<Out*>(o[0]) = cast<Out>(op.project(acc));
        });
      }
    });
  }

  template <typename In, typename Op>
  void value_and_index(const char*, const Op& op) const {
    run<In>(op, {&out, &indices}, [](char* const* o, const typename Op::acc_t& acc) {
      *reinterpret_cast<In*>(o[0]) = cast<In>(acc.value);
      *reinterpret_cast<int64_t*>(o[1]) = acc.index;
    });
  }

  template <typename In, typename Op>
  void index(const char*, const Op& op) const {
    run<In>(op, {&indices},
            [](char* const* o, const typename Op::acc_t& acc) { *reinterpret_cast<int64_t*>(o[0]) = acc.index; });
  }
};

int64_t reduced_count(const Tensor& in, const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= in.sizes()[d];
  return n;
}

}  // namespace

void CpuBackend::reduce(ReduceOp op, const Tensor& out, const Tensor& indices, const Tensor& in,
                        const std::vector<int64_t>& dims, OpParams p) {
  kernels::reduce(op, in.dtype(), p, indices.defined(), reduced_count(in, dims), CpuReducer{out, indices, in, dims});
}

}  // namespace brisk::cpu
