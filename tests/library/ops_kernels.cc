#include "tests/library/ops_kernels.h"

#include "autograd/ops.h"
#include "library/library.h"

namespace brisk::testops {

Tensor axpy_cpu(const Tensor& x, const Tensor& y, double a) { return x * a + y; }

std::tuple<Tensor, Tensor> split_sign_cpu(const Tensor& x) { return {clamp(x, 0.0), clamp(x, std::nullopt, 0.0)}; }

Tensor masked_scale_cpu(const Tensor& x, const Tensor& mask, double s) { return where(mask, x * s, x); }

std::vector<Tensor> scale_all_cpu(const std::vector<Tensor>& xs, double s) {
  std::vector<Tensor> out;
  for (const Tensor& x : xs) out.push_back(x * s);
  return out;
}

Tensor sum_dims_cpu(Tensor x, std::vector<int64_t> dims, bool keepdim, const std::string& note, int64_t n) {
  Tensor sum = x.sum(dims, keepdim) * static_cast<double>(n);
  return note == "plus one" ? sum + 1.0 : sum;
}

// The CPU kernel of cpu_only stands for a CUDA one too: no CUDA tensor exists here to reach it.
Tensor identity(const Tensor& x) { return x.clone(); }

}  // namespace brisk::testops

BRISK_LIBRARY_IMPL(testops, CPU, m) {
  using namespace brisk::testops;
  m.impl("axpy", &axpy_cpu);
  m.impl("split_sign", &split_sign_cpu);
  m.impl("masked_scale", &masked_scale_cpu);
  m.impl("scale_all", &scale_all_cpu);
  m.impl("sum_dims", &sum_dims_cpu);
  m.impl("cpu_only", &identity);
  m.impl("twice", [](const brisk::Tensor& x) { return x * 2.0; });
}

BRISK_LIBRARY_IMPL(testops, CUDA, m) { m.impl("cpu_only", &brisk::testops::identity); }

BRISK_LIBRARY_IMPL(testops, Sim, m) {
  using brisk::library::sim_kernel_from_cpu;
  using namespace brisk::testops;
  m.impl("axpy", sim_kernel_from_cpu(&axpy_cpu));
  m.impl("split_sign", sim_kernel_from_cpu(&split_sign_cpu));
  m.impl("masked_scale", sim_kernel_from_cpu(&masked_scale_cpu));
  m.impl("scale_all", sim_kernel_from_cpu(&scale_all_cpu));
}
