// The Tensor methods and operators that are spelled as free functions in autograd/ops.h (the
// compound assignments are in inplace.cc; number - tensor and number / tensor in arithmetic.cc).
#include "autograd/ops.h"

namespace brisk {

Tensor Tensor::add(const Tensor& other, Scalar alpha) const { return brisk::add(*this, other, alpha); }
Tensor Tensor::sub(const Tensor& other, Scalar alpha) const { return brisk::sub(*this, other, alpha); }
Tensor Tensor::mul(const Tensor& other) const { return brisk::mul(*this, other); }
Tensor Tensor::div(const Tensor& other) const { return brisk::div(*this, other); }
Tensor Tensor::pow(const Tensor& exponent) const { return brisk::pow(*this, exponent); }
Tensor Tensor::pow(Scalar exponent) const { return brisk::pow(*this, exponent); }
Tensor Tensor::neg() const { return brisk::neg(*this); }
Tensor Tensor::remainder(const Tensor& other) const { return brisk::remainder(*this, other); }
Tensor Tensor::remainder(Scalar other) const { return brisk::remainder(*this, other); }
Tensor Tensor::fmod(const Tensor& other) const { return brisk::fmod(*this, other); }
Tensor Tensor::fmod(Scalar other) const { return brisk::fmod(*this, other); }
#define BRISK_UNARY_ROW_METHOD(Op, name, ...) \
  Tensor Tensor::name() const { return brisk::name(*this); }
BRISK_UNARY_MATH_OPS(BRISK_UNARY_ROW_METHOD)
BRISK_ACTIVATION_OPS(BRISK_UNARY_ROW_METHOD)
#undef BRISK_UNARY_ROW_METHOD
Tensor Tensor::gelu(const std::string& approximate) const { return brisk::gelu(*this, approximate); }
Tensor Tensor::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const {
  return brisk::clamp(*this, min, max);
}
Tensor Tensor::clamp(const Tensor& min, const Tensor& max) const { return brisk::clamp(*this, min, max); }
Tensor Tensor::maximum(const Tensor& other) const { return brisk::maximum(*this, other); }
Tensor Tensor::minimum(const Tensor& other) const { return brisk::minimum(*this, other); }
Tensor Tensor::lerp(const Tensor& end, Scalar weight) const { return brisk::lerp(*this, end, weight); }
Tensor Tensor::masked_fill(const Tensor& mask, Scalar value) const { return brisk::masked_fill(*this, mask, value); }
Tensor Tensor::logical_not() const { return brisk::logical_not(*this); }

Tensor Tensor::sum(IntArrayRef dims, bool keepdim) const { return brisk::sum(*this, dims, keepdim); }
Tensor Tensor::mean(IntArrayRef dims, bool keepdim) const { return brisk::mean(*this, dims, keepdim); }
Tensor Tensor::prod(IntArrayRef dims, bool keepdim) const { return brisk::prod(*this, dims, keepdim); }
Tensor Tensor::amax(IntArrayRef dims, bool keepdim) const { return brisk::amax(*this, dims, keepdim); }
Tensor Tensor::amin(IntArrayRef dims, bool keepdim) const { return brisk::amin(*this, dims, keepdim); }
std::pair<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const { return brisk::max(*this, dim, keepdim); }
std::pair<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const { return brisk::min(*this, dim, keepdim); }
Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const { return brisk::argmax(*this, dim, keepdim); }
Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim) const { return brisk::argmin(*this, dim, keepdim); }
Tensor Tensor::var(IntArrayRef dims, int64_t correction, bool keepdim) const {
  return brisk::var(*this, dims, correction, keepdim);
}
Tensor Tensor::std(IntArrayRef dims, int64_t correction, bool keepdim) const {
  return brisk::std(*this, dims, correction, keepdim);
}
Tensor Tensor::logsumexp(IntArrayRef dims, bool keepdim) const {
  return brisk::logsumexp(*this, dims, keepdim);
}
Tensor Tensor::norm(double p, IntArrayRef dims, bool keepdim) const {
  return brisk::norm(*this, p, dims, keepdim);
}
Tensor Tensor::softmax(int64_t dim) const { return brisk::softmax(*this, dim); }
Tensor Tensor::log_softmax(int64_t dim) const { return brisk::log_softmax(*this, dim); }

Tensor Tensor::matmul(const Tensor& other) const { return brisk::matmul(*this, other); }
Tensor Tensor::mm(const Tensor& other) const { return brisk::mm(*this, other); }
Tensor Tensor::bmm(const Tensor& other) const { return brisk::bmm(*this, other); }
Tensor Tensor::index_select(int64_t dim, const Tensor& index) const { return brisk::index_select(*this, dim, index); }
Tensor Tensor::gather(int64_t dim, const Tensor& index) const { return brisk::gather(*this, dim, index); }
Tensor Tensor::scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const {
  return brisk::scatter_add(*this, dim, index, src);
}
std::vector<Tensor> Tensor::split(int64_t split_size, int64_t dim) const {
  return brisk::split(*this, split_size, dim);
}
std::vector<Tensor> Tensor::split(const std::vector<int64_t>& split_sizes, int64_t dim) const {
  return brisk::split(*this, split_sizes, dim);
}
std::vector<Tensor> Tensor::chunk(int64_t chunks, int64_t dim) const { return brisk::chunk(*this, chunks, dim); }

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator+(const Tensor& a, Scalar b) { return a.add(b); }
Tensor operator-(const Tensor& a, Scalar b) { return a.sub(b); }
Tensor operator*(const Tensor& a, Scalar b) { return a.mul(b); }
Tensor operator/(const Tensor& a, Scalar b) { return a.div(b); }
Tensor operator+(Scalar a, const Tensor& b) { return b.add(a); }
Tensor operator*(Scalar a, const Tensor& b) { return b.mul(a); }
Tensor operator-(const Tensor& a) { return neg(a); }
Tensor operator%(const Tensor& a, const Tensor& b) { return remainder(a, b); }
Tensor operator%(const Tensor& a, Scalar b) { return remainder(a, b); }
Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }
Tensor operator==(const Tensor& a, Scalar b) { return a.eq(b); }
Tensor operator!=(const Tensor& a, Scalar b) { return a.ne(b); }
Tensor operator<(const Tensor& a, Scalar b) { return a.lt(b); }
Tensor operator<=(const Tensor& a, Scalar b) { return a.le(b); }
Tensor operator>(const Tensor& a, Scalar b) { return a.gt(b); }
Tensor operator>=(const Tensor& a, Scalar b) { return a.ge(b); }

}  // namespace brisk
