#pragma once
// The random fills of every backend, from op to draw functor (tensor/functors/philox.h) to
// dtype, written once. A backend supplies `fill`, called as fill(TypeTag<T>{}, draw): it
// writes draw(philox4x32(seed, offset + i)) as T to element i of its output, so the numbers
// depend on neither the device nor how the work is split.
#include <type_traits>

#include "tensor/dispatch.h"
#include "tensor/functors/philox.h"
#include "tensor/op_kinds.h"

namespace brisk::kernels {

template <typename Fill>
void random(RandomOp op, DType dtype, OpParams p, const Fill& fill) {
  const char* name = op_name(op);
  switch (op) {
    case RandomOp::Uniform:
      return dispatch(FloatingTypes{}, dtype, name, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same_v<T, double>) {
          fill(tag, UniformDoubleDraw{p.a, p.b - p.a});
        } else {
          fill(tag, UniformFloatDraw{static_cast<float>(p.a), static_cast<float>(p.b - p.a)});
        }
      });
    case RandomOp::Normal:
      return dispatch(FloatingTypes{}, dtype, name, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same_v<T, double>) {
          fill(tag, NormalDoubleDraw{p.a, p.b});
        } else {
          fill(tag, NormalFloatDraw{static_cast<float>(p.a), static_cast<float>(p.b)});
        }
      });
    case RandomOp::Bernoulli:
      return dispatch(AllTypes{}, dtype, name, [&](auto tag) { fill(tag, BernoulliDraw{p.a}); });
    case RandomOp::RandomInt:
      return dispatch(NumericTypes{}, dtype, name, [&](auto tag) {
        fill(tag, RandomIntDraw{static_cast<int64_t>(p.a), static_cast<uint64_t>(p.b - p.a)});
      });
  }
}

}  // namespace brisk::kernels
