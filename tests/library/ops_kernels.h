#pragma once
// CPU kernels of the test ops of namespace testops, registered in ops_kernels.cc and
// declared in library_test.cc.
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "tensor/int_array_ref.h"
#include "tensor/tensor.h"

namespace brisk::testops {

// a * x + y
Tensor axpy_cpu(const Tensor& x, const Tensor& y, double a);
// (x where x > 0 else 0, x where x < 0 else 0)
std::tuple<Tensor, Tensor> split_sign_cpu(const Tensor& x);
// x * s where mask else x; mask is bool.
Tensor masked_scale_cpu(const Tensor& x, const Tensor& mask, double s);
// each of xs times s
std::vector<Tensor> scale_all_cpu(const std::vector<Tensor>& xs, double s);
// x summed over dims (keepdim), times n, plus one if note == "plus one"; takes int[] as a vector.
Tensor sum_dims_cpu(Tensor x, std::vector<int64_t> dims, bool keepdim, const std::string& note, int64_t n);

}  // namespace brisk::testops
