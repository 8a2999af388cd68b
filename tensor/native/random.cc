// Random ops. Each reserves one Philox counter per element from its Generator, so a run is
// reproducible from the seed and the sequence of ops alone.
#include <numeric>

#include "tensor/backend.h"
#include "tensor/functors/philox.h"
#include "tensor/generator.h"
#include "tensor/graphs/capture_state.h"
#include "tensor/native/operands.h"
#include "tensor/native/ops.h"

namespace brisk::native {
namespace {

Generator& or_default(Generator* gen) { return gen ? *gen : default_generator(); }

// The backend fills dense memory; a strided `self` is filled through a dense temporary.
Tensor& fill_random(Tensor& self, RandomOp op, OpParams params, Generator* gen) {
  if (self.numel() == 0) return self;
  graphs::check_not_capturing(self.device(), op_name(op),
                              "the generator's seed and offset are read on the host, so every replay would draw the "
                              "same numbers; draw random numbers outside the captured code");
  Generator& g = or_default(gen);
  uint64_t seed = g.seed();
  uint64_t offset = g.reserve(static_cast<uint64_t>(self.numel()));
  Tensor target = self.is_contiguous() ? self : empty_like(self, MemoryFormat::Contiguous);
  backend_for(self.device()).random(op, target, seed, offset, params);
  if (!target.is_same(self)) copy_(self, target);
  return self;
}

}  // namespace

Tensor& uniform_(Tensor& self, double from, double to, Generator* gen) {
  BRISK_CHECK(self.is_floating_point(), "uniform_: expected a floating point tensor, got {}", self.describe());
  BRISK_CHECK(from <= to, "uniform_: expected from <= to, got from={} to={}", from, to);
  return fill_random(self, RandomOp::Uniform, {from, to}, gen);
}

Tensor& normal_(Tensor& self, double mean, double std, Generator* gen) {
  BRISK_CHECK(self.is_floating_point(), "normal_: expected a floating point tensor, got {}", self.describe());
  BRISK_CHECK(std >= 0, "normal_: expected std >= 0, got {}", std);
  return fill_random(self, RandomOp::Normal, {mean, std}, gen);
}

Tensor& bernoulli_(Tensor& self, double p, Generator* gen) {
  BRISK_CHECK(p >= 0 && p <= 1, "bernoulli_: expected 0 <= p <= 1, got {}", p);
  return fill_random(self, RandomOp::Bernoulli, {p, 0.0}, gen);
}

Tensor randint(int64_t low, int64_t high, const Shape& shape, TensorOptions options, Generator* gen) {
  BRISK_CHECK(low < high, "randint: expected low < high, got low={} high={}", low, high);
  BRISK_CHECK(options.dtype() != kBool, "randint: the dtype must be numeric, got bool");
  detail::check_fits("randint", Scalar(low), options.dtype());
  detail::check_fits("randint", Scalar(high - 1), options.dtype());
  // The kernel takes its bounds as float64 parameters, exact up to 2^53.
  constexpr int64_t kExact = int64_t{1} << 53;
  BRISK_CHECK(low >= -kExact && high <= kExact, "randint: bounds beyond +-2^53 are not supported, got low={} high={}",
              low, high);
  Tensor out = empty(shape, options);
  return fill_random(out, RandomOp::RandomInt, {static_cast<double>(low), static_cast<double>(high)}, gen);
}

Tensor bernoulli(const Tensor& p, Generator* gen) {
  BRISK_CHECK(p.is_floating_point(), "bernoulli: expected floating point probabilities, got {}", p.describe());
  if (p.numel() > 0) {
    double lo = reduce(ReduceOp::Min, p, {}, false).item<double>();
    double hi = reduce(ReduceOp::Max, p, {}, false).item<double>();
    BRISK_CHECK(lo >= 0 && hi <= 1, "bernoulli: expected all probabilities in [0, 1], got values in [{}, {}]", lo, hi);
  }
  // u < p with u uniform in [0, 1) is 1 with probability p.
  Tensor u = empty(p.sizes(), TensorOptions(p.dtype() == kFloat64 ? kFloat64 : kFloat32).device(p.device()));
  uniform_(u, 0.0, 1.0, gen);
  return to(binary(BinaryOp::Lt, u, p), p.device(), p.dtype());
}

Tensor randperm(int64_t n, Generator* gen, TensorOptions options) {
  BRISK_CHECK(n >= 0, "randperm: n must be non-negative, got {}", n);
  BRISK_CHECK(options.dtype() != kBool && (options.dtype() != kUInt8 || n <= 256) &&
                  (options.dtype() != kInt32 || n <= (int64_t{1} << 31)),
              "randperm: n={} does not fit in dtype {}", n, options.dtype());
  std::vector<int64_t> perm(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), int64_t{0});
  Generator& g = or_default(gen);
  uint64_t seed = g.seed();
  uint64_t offset = g.reserve(static_cast<uint64_t>(n));
  // Fisher-Yates: position i swaps with a uniform j in [0, i], drawn from counter offset + i.
  for (int64_t i = n - 1; i > 0; --i) {
    Philox4x32 r = philox4x32(seed, offset + static_cast<uint64_t>(i));
    uint64_t bits = (static_cast<uint64_t>(r.v[0]) << 32) | r.v[1];
    std::swap(perm[i], perm[bits % static_cast<uint64_t>(i + 1)]);
  }
  return from_vector(perm, {n}, options);
}

}  // namespace brisk::native

namespace brisk {

Tensor& Tensor::uniform_(double from, double to, Generator* generator) {
  native::uniform_(*this, from, to, generator);
  bump_version();
  return *this;
}

Tensor& Tensor::normal_(double mean, double std, Generator* generator) {
  native::normal_(*this, mean, std, generator);
  bump_version();
  return *this;
}

Tensor& Tensor::bernoulli_(double p, Generator* generator) {
  native::bernoulli_(*this, p, generator);
  bump_version();
  return *this;
}

}  // namespace brisk
