// The CUDA indexing kernels (cuda/index.cu) and random fills (cuda/random.cu) against the CPU:
// index_select, gather and scatter_add for every dtype, along every dim, with strided
// operands and repeated indices; uniform and bernoulli equal to the CPU's bits, normal to
// the last bits of each device's logf/cosf.
#include "tensor/generator.h"
#include "tests/cuda/backend_test_util.h"

namespace brisk {
namespace {

using testing::on_cpu;
using testing::on_gpu;
using testing::random_cpu;
using testing::require_matches;

Tensor random_index(const Shape& shape, int64_t bound, uint64_t seed) {
  return random_cpu(shape, kInt64, seed, 0.0, static_cast<double>(bound));
}

TEST_CASE("index_select and gather match the CPU for every dtype and dim", "[gpu]") {
  uint64_t seed = 0;
  for (DType dtype : testing::all_dtypes()) {
    Tensor x = random_cpu({7, 9, 11}, dtype, ++seed, -50.0, 50.0);
    Tensor transposed = native::transpose(random_cpu({11, 9, 7}, dtype, ++seed, -50.0, 50.0), 0, 2);
    for (int64_t dim = 0; dim < 3; ++dim) {
      INFO(dtype_name(dtype) << " along dim " << dim);
      Tensor index = random_index({13}, x.size(dim), ++seed);
      for (const Tensor& t : {x, transposed}) {
        require_matches(native::index_select(on_gpu(t), dim, on_gpu(index)), native::index_select(t, dim, index));
        Shape shape = t.sizes();
        shape[dim] = 5;
        shape[(dim + 1) % 3] -= 2;
        Tensor gather_index = random_index(shape, t.size(dim), ++seed);
        require_matches(native::gather(on_gpu(t), dim, on_gpu(gather_index)), native::gather(t, dim, gather_index));
      }
    }
  }
}

TEST_CASE("scatter_add sums repeated indices like the CPU for every dtype", "[gpu]") {
  uint64_t seed = 100;
  for (DType dtype : testing::all_dtypes()) {
    for (int64_t dim = 0; dim < 2; ++dim) {
      INFO(dtype_name(dtype) << " along dim " << dim);
      Tensor self = random_cpu({40, 30}, dtype, ++seed, 0.0, 4.0);
      Shape shape{40, 30};
      shape[dim] = 200;  // many more updates than slots: every slot is hit repeatedly
      Tensor src = random_cpu(shape, dtype, ++seed, 0.0, 4.0);
      Tensor index = random_index(shape, self.size(dim), ++seed);
      Tensor want = native::scatter_add(self, dim, index, src);
      Tensor got = native::scatter_add(on_gpu(self), dim, on_gpu(index), on_gpu(src));
      // Atomic float additions land in any order; the 16-bit types round after each one.
      testing::Tolerance tol = testing::elementwise_tolerance(dtype);
      if (dtype == kFloat16) tol = {2e-2, 0.05};
      if (dtype == kBFloat16) tol = {5e-2, 0.5};
      require_matches(got, want, tol);
    }
  }
}

TEST_CASE("one_hot on CUDA goes through scatter_add", "[gpu]") {
  Tensor labels = random_index({1000}, 10, 9);
  require_matches(native::one_hot(on_gpu(labels), 10), native::one_hot(labels, 10));
}

TEST_CASE("random fills draw the CPU's numbers", "[gpu]") {
  for (DType dtype : {kFloat32, kFloat64, kBFloat16, kFloat16}) {
    INFO(dtype_name(dtype));
    Shape shape{1 << 20};
    Generator cpu_gen(42), gpu_gen(42);
    Tensor cpu = native::empty(shape, dtype);
    Tensor gpu = native::empty(shape, TensorOptions(dtype).device(testing::kCuda));
    native::uniform_(cpu, -3.0, 5.0, &cpu_gen);
    native::uniform_(gpu, -3.0, 5.0, &gpu_gen);
    CHECK(native::equal(on_cpu(gpu), cpu));
    native::bernoulli_(cpu, 0.3, &cpu_gen);
    native::bernoulli_(gpu, 0.3, &gpu_gen);
    CHECK(native::equal(on_cpu(gpu), cpu));
    native::normal_(cpu, 1.0, 2.0, &cpu_gen);
    native::normal_(gpu, 1.0, 2.0, &gpu_gen);
    // A few ulps apart in float, which a 16-bit value may round one step apart.
    bool narrow = dtype == kBFloat16 || dtype == kFloat16;
    require_matches(gpu, cpu, narrow ? testing::elementwise_tolerance(dtype) : testing::Tolerance{1e-5, 1e-5});
  }
  for (DType dtype : {kInt64, kInt32, kUInt8, kFloat32, kFloat64}) {
    INFO("randint to " << dtype_name(dtype));
    Generator cpu_gen(11), gpu_gen(11);
    Tensor cpu = native::randint(0, 200, {5000}, dtype, &cpu_gen);
    Tensor gpu = native::randint(0, 200, {5000}, TensorOptions(dtype).device(testing::kCuda), &gpu_gen);
    CHECK(native::equal(on_cpu(gpu), cpu));
  }
  Tensor flags = native::empty({4097}, TensorOptions(kBool).device(testing::kCuda));
  Tensor cpu_flags = native::empty({4097}, kBool);
  Generator a(7), b(7);
  native::bernoulli_(flags, 0.5, &a);
  native::bernoulli_(cpu_flags, 0.5, &b);
  CHECK(native::equal(on_cpu(flags), cpu_flags));
}

TEST_CASE("a strided random fill matches the CPU's", "[gpu]") {
  Generator cpu_gen(3), gpu_gen(3);
  Tensor cpu = native::zeros({64, 64}, kFloat32);
  Tensor gpu = on_gpu(cpu);
  Tensor cpu_view = native::transpose(cpu, 0, 1);
  Tensor gpu_view = native::transpose(gpu, 0, 1);
  native::uniform_(cpu_view, 0.0, 1.0, &cpu_gen);
  native::uniform_(gpu_view, 0.0, 1.0, &gpu_gen);
  CHECK(native::equal(on_cpu(gpu), cpu));
}

}  // namespace
}  // namespace brisk
