// In-place ops: version counters, the errors PyTorch gives, history rebasing, and gradcheck
// of each in-place op applied to a copy of a leaf.
#include "tests/autograd/test_util.h"

namespace brisk::test {
namespace {

// fn(in) applies an in-place op to a clone of in[0] (a non-leaf, so it may be modified).
using InplaceFn = std::function<void(Tensor& self, const TensorList& in)>;

autograd::GradcheckFn on_clone(const InplaceFn& op) {
  return [op](const TensorList& in) {
    Tensor self = in[0].clone();
    op(self, in);
    return self;
  };
}

bool check_inplace(const InplaceFn& op, const TensorList& inputs) { return gradcheck(on_clone(op), inputs); }

TEST_CASE("in-place ops bump the version counter shared by views", "[inplace]") {
  Tensor x = randn({2, 3}, kFloat64);
  Tensor view = x.t();
  uint32_t v = x.version();
  x.add_(1.0);
  REQUIRE(x.version() == v + 1);
  view.mul_(2.0);
  REQUIRE(x.version() == v + 2);
  x.zero_();
  x.copy_(ones({3}, kFloat64));
  REQUIRE(view.version() == v + 4);
}

TEST_CASE("modifying a saved input in place makes backward fail with PyTorch's message", "[inplace]") {
  Tensor x = make({2, 3});
  Tensor y = x.clone();
  Tensor z = y.sin();
  y.add_(1.0);
  REQUIRE_THROWS_WITH(z.sum().backward(),
                      Catch::Contains("one of the variables needed for gradient computation has been modified by an "
                                      "inplace operation: [float64 [2, 3]], which is output 0 of CloneBackward, is at "
                                      "version 1; expected version 0 instead"));
}

TEST_CASE("modifying a saved output in place names the node that saved it", "[inplace]") {
  Tensor x = make({3});
  Tensor y = x.exp();
  y.mul_(2.0);
  REQUIRE_THROWS_WITH(y.sum().backward(), Catch::Contains("which is output 0 of ExpBackward") &&
                                              Catch::Contains("is at version 1; expected version 0"));
}

TEST_CASE("an in-place op on a leaf that requires grad is an error", "[inplace]") {
  Tensor x = make({2});
  REQUIRE_THROWS_WITH(x.add_(1.0),
                      Catch::Contains("a leaf Variable that requires grad is being used in an in-place operation."));
  REQUIRE_THROWS_WITH(x.zero_(), Catch::StartsWith("zero_: a leaf Variable"));
  REQUIRE_THROWS_WITH(x += x, Catch::Contains("leaf Variable"));
}

TEST_CASE("an in-place update of a leaf is allowed under no_grad, as an optimizer does", "[inplace]") {
  Tensor w = make({2});
  (w * 3.0).sum().backward();
  std::vector<double> before = values(w);
  uint32_t version = w.version();
  {
    NoGradGuard no_grad;
    w.sub_(w.grad() * 0.1);
  }
  REQUIRE(w.version() == version + 1);
  REQUIRE(w.is_leaf());
  REQUIRE(w.requires_grad());
  REQUIRE(std::abs(values(w)[0] - (before[0] - 0.3)) < 1e-12);
}

TEST_CASE("an in-place op on a view of a tensor that requires grad is refused", "[inplace]") {
  Tensor x = make({2, 3});
  Tensor y = x * 1.0;
  Tensor row = y[0];
  REQUIRE_THROWS_WITH(row.mul_(2.0), Catch::Contains("view of a tensor that requires grad"));
  REQUIRE_THROWS_WITH(x.narrow(1, 0, 1).fill_(0.0), Catch::Contains("view"));
  NoGradGuard no_grad;
  x.narrow(1, 0, 1).fill_(0.0);
  REQUIRE(values(x)[0] == 0.0);
}

TEST_CASE("an in-place op on a non-leaf rebases its history", "[inplace]") {
  Tensor x = make({2});
  Tensor y = x * 2.0;
  y.add_(1.0);
  REQUIRE(y.grad_fn()->name() == "AddBackward");
  y.mul_(3.0);
  REQUIRE(y.grad_fn()->name() == "MulBackward");
  y.exp_();
  y.sum().backward();
  Tensor expected = ((x.detach() * 2.0 + 1.0) * 3.0).exp() * 6.0;
  REQUIRE(close(x.grad(), expected));
}

TEST_CASE("an in-place op gives history to a tensor that had none", "[inplace]") {
  Tensor x = make({3});
  Tensor acc = zeros({3}, kFloat64);
  acc.add_(x * 2.0);
  acc.add_(x);
  REQUIRE(acc.requires_grad());
  REQUIRE_FALSE(acc.is_leaf());
  acc.sum().backward();
  REQUIRE(values(x.grad()) == std::vector<double>{3, 3, 3});
}

TEST_CASE("retain_grad follows a tensor through an in-place op", "[inplace][retain_grad]") {
  Tensor x = make({2});
  Tensor y = x * 2.0;
  y.retain_grad();
  y.add_(1.0);
  (y * 3.0).sum().backward();
  REQUIRE(values(y.grad()) == std::vector<double>{3, 3});
  REQUIRE(values(x.grad()) == std::vector<double>{6, 6});
}

TEST_CASE("gradcheck in-place arithmetic with tensors", "[gradcheck][inplace]") {
  Tensor a = make({3, 4}), b = make({4}), nz = make({4}, Values::NonZero);
  REQUIRE(check_inplace([](Tensor& s, const TensorList& in) { s.add_(in[1], 2.0); }, {a, b}));
  REQUIRE(check_inplace([](Tensor& s, const TensorList& in) { s.sub_(in[1], 0.5); }, {a, b}));
  REQUIRE(check_inplace([](Tensor& s, const TensorList& in) { s.mul_(in[1]); }, {a, b}));
  REQUIRE(check_inplace([](Tensor& s, const TensorList& in) { s.div_(in[1]); }, {a, nz}));
  REQUIRE(check_inplace([](Tensor& s, const TensorList& in) { s += in[1]; }, {a, b}));
  REQUIRE(check_inplace([](Tensor& s, const TensorList& in) { s -= in[1]; }, {a, b}));
  REQUIRE(check_inplace([](Tensor& s, const TensorList& in) { s *= in[1]; }, {a, b}));
  REQUIRE(check_inplace([](Tensor& s, const TensorList& in) { s /= in[1]; }, {a, nz}));
}

TEST_CASE("gradcheck in-place arithmetic with numbers", "[gradcheck][inplace]") {
  Tensor a = make({2, 3}, Values::Positive, Layout::Transposed);
  REQUIRE(check_inplace([](Tensor& s, const TensorList&) { s.add_(2.0); }, {a}));
  REQUIRE(check_inplace([](Tensor& s, const TensorList&) { s.sub_(2.0); }, {a}));
  REQUIRE(check_inplace([](Tensor& s, const TensorList&) { s.mul_(-3.0); }, {a}));
  REQUIRE(check_inplace([](Tensor& s, const TensorList&) { s.div_(4.0); }, {a}));
  REQUIRE(check_inplace([](Tensor& s, const TensorList&) { s.pow_(2.5); }, {a}));
  REQUIRE(check_inplace([](Tensor& s, const TensorList&) { s += 1.0; }, {a}));
  REQUIRE(check_inplace([](Tensor& s, const TensorList&) { s -= 1.0; }, {a}));
  REQUIRE(check_inplace([](Tensor& s, const TensorList&) { s *= 2.0; }, {a}));
  REQUIRE(check_inplace([](Tensor& s, const TensorList&) { s /= 2.0; }, {a}));
}

TEST_CASE("gradcheck in-place math functions", "[gradcheck][inplace]") {
  Tensor n = make({2, 3}, Values::NonZero), p = make({2, 3}, Values::Positive);
  REQUIRE(check_inplace([](Tensor& s, const TensorList&) { s.neg_(); }, {n}));
  REQUIRE(check_inplace([](Tensor& s, const TensorList&) { s.abs_(); }, {n}));
  REQUIRE(check_inplace([](Tensor& s, const TensorList&) { s.exp_(); }, {n}));
  REQUIRE(check_inplace([](Tensor& s, const TensorList&) { s.log_(); }, {p}));
  REQUIRE(check_inplace([](Tensor& s, const TensorList&) { s.sqrt_(); }, {p}));
  REQUIRE(check_inplace([](Tensor& s, const TensorList&) { s.relu_(); }, {n}));
  REQUIRE(check_inplace([](Tensor& s, const TensorList&) { s.sigmoid_(); }, {n}));
  REQUIRE(check_inplace([](Tensor& s, const TensorList&) { s.tanh_(); }, {n}));
}

TEST_CASE("gradcheck clamp_, masked_fill_, fill_, zero_ and copy_", "[gradcheck][inplace]") {
  Tensor a = make({3, 4}), src = make({4});
  Tensor mask = randn({3, 1}, kFloat64, &generator()).gt(0.0);
  REQUIRE(check_inplace([](Tensor& s, const TensorList&) { s.clamp_(-0.5, 0.5); }, {a}));
  REQUIRE(check_inplace([](Tensor& s, const TensorList&) { s.clamp_(std::nullopt, 0.1); }, {a}));
  REQUIRE(check_inplace([&](Tensor& s, const TensorList&) { s.masked_fill_(mask, 3.0); }, {a}));
  REQUIRE(check_inplace([](Tensor& s, const TensorList&) { s.fill_(1.5); }, {a}));
  REQUIRE(check_inplace([](Tensor& s, const TensorList&) { s.zero_(); }, {a}));
  REQUIRE(check_inplace([](Tensor& s, const TensorList& in) { s.copy_(in[1]); }, {a, src}));
}

// These keep the value self had before the change: its history must reach the second derivative.
TEST_CASE("gradgradcheck in-place ops whose gradient reads the old value of self",
          "[gradcheck][inplace][higher_order]") {
  Tensor a = make({3, 4}), b = make({4}), nz = make({4}, Values::NonZero), p = make({2, 3}, Values::Positive);
  REQUIRE(gradgradcheck(on_clone([](Tensor& s, const TensorList& in) { s.mul_(in[1]); }), {a, b}));
  REQUIRE(gradgradcheck(on_clone([](Tensor& s, const TensorList& in) { s.div_(in[1]); }), {a, nz}));
  REQUIRE(gradgradcheck(on_clone([](Tensor& s, const TensorList&) { s.pow_(2.5); }), {p}));
  REQUIRE(gradgradcheck(on_clone([](Tensor& s, const TensorList&) { s.log_(); }), {p}));
}

TEST_CASE("copy_ from a float32 source sends a float32 gradient back", "[inplace]") {
  Tensor src = tensor<float>({1.0f, 2.0f}).requires_grad_();
  Tensor dst = zeros({2}, kFloat64);
  dst.copy_(src);
  (dst * 3.0).sum().backward();
  REQUIRE(src.grad().dtype() == kFloat32);
  REQUIRE(src.grad().to_vector<float>() == std::vector<float>{3.0f, 3.0f});
}

TEST_CASE("in-place ops return the tensor itself", "[inplace]") {
  Tensor x = randn({2}, kFloat64);
  REQUIRE(&x.add_(1.0) == &x);
  REQUIRE(&(x *= 2.0) == &x);
  REQUIRE(&x.clamp_(0.0, 1.0) == &x);
}

}  // namespace
}  // namespace brisk::test
