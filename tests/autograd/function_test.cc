// Custom differentiable functions (autograd::Function).
#include "autograd/function.h"
#include "tests/autograd/test_util.h"

namespace brisk::test {
namespace {

using autograd::AutogradContext;
using autograd::Function;

struct MulConstant : Function<MulConstant> {
  static Tensor forward(AutogradContext* ctx, Tensor x, double c) {
    ctx->saved_data["c"] = c;
    return x * c;
  }
  static TensorList backward(AutogradContext* ctx, TensorList grads) {
    return {grads[0] * ctx->saved_data["c"].toDouble(), Tensor()};
  }
};

// exp, saving its output: the saved output comes back with this node as its grad_fn.
struct Exp : Function<Exp> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    Tensor out = x.exp();
    ctx->save_for_backward({out});
    return out;
  }
  static TensorList backward(AutogradContext* ctx, TensorList grads) {
    return {grads[0] * ctx->get_saved_variables()[0]};
  }
};

// x * y + scale * x, with a non-tensor argument in between.
struct MulAdd : Function<MulAdd> {
  static Tensor forward(AutogradContext* ctx, Tensor x, double scale, Tensor y) {
    ctx->save_for_backward({x, y});
    ctx->saved_data["scale"] = scale;
    return x * y + x * scale;
  }
  static TensorList backward(AutogradContext* ctx, TensorList grads) {
    TensorList saved = ctx->get_saved_variables();
    double scale = ctx->saved_data["scale"].toDouble();
    return {grads[0] * (saved[1] + scale), Tensor(), grads[0] * saved[0]};
  }
};

// Two outputs: the sorted pair (min, max) elementwise, plus non-differentiable "which" flags.
struct MinMax : Function<MinMax> {
  static TensorList forward(AutogradContext* ctx, Tensor a, Tensor b) {
    Tensor a_smaller = a.le(b);
    ctx->save_for_backward({a_smaller});
    Tensor flags = a_smaller.to(kFloat64);
    ctx->mark_non_differentiable({flags});
    return {where(a_smaller, a, b), where(a_smaller, b, a), flags};
  }
  static TensorList backward(AutogradContext* ctx, TensorList grads) {
    Tensor a_smaller = ctx->get_saved_variables()[0];
    return {where(a_smaller, grads[0], grads[1]), where(a_smaller, grads[1], grads[0])};
  }
};

TEST_CASE("a custom function's backward gives the gradient", "[function]") {
  Tensor x = make({3});
  Tensor y = MulConstant::apply(x, 2.5);
  REQUIRE(y.requires_grad());
  REQUIRE(y.grad_fn()->name().find("MulConstant") != std::string::npos);
  y.sum().backward();
  REQUIRE(values(x.grad()) == std::vector<double>{2.5, 2.5, 2.5});
}

TEST_CASE("gradcheck custom functions with saved inputs, outputs and non-tensor arguments", "[function][gradcheck]") {
  REQUIRE(gradcheck([](const TensorList& in) { return Exp::apply(in[0]); }, {make({2, 3})}));
  REQUIRE(gradcheck([](const TensorList& in) { return MulAdd::apply(in[0], 0.5, in[1]); }, {make({3}), make({3})}));
  REQUIRE(gradcheck([](const TensorList& in) { return MinMax::apply(in[0], in[1])[1] * 2.0; }, {make({4}), make({4})}));
}

TEST_CASE("a custom function's forward runs without recording history", "[function]") {
  struct Probe : Function<Probe> {
    static Tensor forward(AutogradContext*, Tensor x) {
      REQUIRE_FALSE(autograd::GradMode::is_enabled());
      Tensor y = x * 2.0;
      REQUIRE(y.grad_fn() == nullptr);
      return y;
    }
    static TensorList backward(AutogradContext*, TensorList grads) { return {grads[0] * 2.0}; }
  };
  Tensor y = Probe::apply(make({2}));
  REQUIRE(y.grad_fn() != nullptr);
  REQUIRE(autograd::GradMode::is_enabled());
}

TEST_CASE("needs_input_grad tells which tensor inputs want a gradient", "[function]") {
  struct Check : Function<Check> {
    static Tensor forward(AutogradContext* ctx, Tensor a, Tensor b) {
      REQUIRE(ctx->needs_input_grad(0));
      REQUIRE_FALSE(ctx->needs_input_grad(1));
      return a * b;
    }
    static TensorList backward(AutogradContext* ctx, TensorList grads) {
      return {grads[0], ctx->needs_input_grad(1) ? grads[0] : Tensor()};
    }
  };
  Check::apply(make({2}), randn({2}, kFloat64)).sum().backward();
}

TEST_CASE("non-differentiable outputs of a custom function do not require grad", "[function]") {
  TensorList out = MinMax::apply(make({3}), make({3}));
  REQUIRE(out.size() == 3);
  REQUIRE(out[0].requires_grad());
  REQUIRE(out[1].requires_grad());
  REQUIRE_FALSE(out[2].requires_grad());
}

TEST_CASE("an unused output of a custom function gets a zero gradient in backward", "[function]") {
  Tensor a = tensor({1, 5}, kFloat64).requires_grad_(), b = tensor({3, 2}, kFloat64).requires_grad_();
  MinMax::apply(a, b)[0].sum().backward();
  REQUIRE(values(a.grad()) == std::vector<double>{1, 0});
  REQUIRE(values(b.grad()) == std::vector<double>{0, 1});
}

TEST_CASE("a custom function returning the wrong number of gradients is an error", "[function]") {
  struct Wrong : Function<Wrong> {
    static Tensor forward(AutogradContext*, Tensor x, Tensor y) { return x + y; }
    static TensorList backward(AutogradContext*, TensorList grads) { return {grads[0]}; }
  };
  Tensor y = Wrong::apply(make({2}), make({2}));
  REQUIRE_THROWS_WITH(y.sum().backward(), Catch::Contains("incorrect number of gradients (expected 2, got 1)"));
}

TEST_CASE("a gradient for a non-tensor argument is an error", "[function]") {
  struct Wrong : Function<Wrong> {
    static Tensor forward(AutogradContext*, Tensor x, int) { return x * 1.0; }
    static TensorList backward(AutogradContext*, TensorList grads) { return {grads[0], grads[0]}; }
  };
  REQUIRE_THROWS_WITH(Wrong::apply(make({2}), 3).sum().backward(), Catch::Contains("is not a tensor"));
}

TEST_CASE("a custom function's saved tensors are version checked and freed", "[function]") {
  Tensor x = make({2});
  Tensor y = Exp::apply(x);
  Tensor z = y.sum();
  z.backward(Tensor(), true);
  z.backward();
  REQUIRE_THROWS_WITH(z.backward(), Catch::Contains("backward through the graph a second time"));

  Tensor w = Exp::apply(x);
  w.mul_(2.0);
  REQUIRE_THROWS_WITH(w.sum().backward(), Catch::Contains("modified by an inplace operation"));
}

TEST_CASE("a custom function that returns its input leaves the input's history alone", "[function]") {
  struct Identity : Function<Identity> {
    static Tensor forward(AutogradContext*, Tensor x) { return x; }
    static TensorList backward(AutogradContext*, TensorList grads) { return {grads[0] * 3.0}; }
  };
  Tensor x = make({2});
  Tensor y = Identity::apply(x);
  REQUIRE(x.is_leaf());
  REQUIRE_FALSE(y.is_leaf());
  REQUIRE(y.storage() == x.storage());
  y.sum().backward();
  REQUIRE(values(x.grad()) == std::vector<double>{3, 3});
}

TEST_CASE("a custom function with no input requiring grad records nothing", "[function]") {
  Tensor y = MulConstant::apply(randn({2}, kFloat64), 2.0);
  REQUIRE_FALSE(y.requires_grad());
  NoGradGuard no_grad;
  REQUIRE_FALSE(MulConstant::apply(make({2}), 2.0).requires_grad());
}

TEST_CASE("a custom function's backward can be differentiated again", "[function][higher_order]") {
  struct Cube : Function<Cube> {
    static Tensor forward(AutogradContext* ctx, Tensor x) {
      ctx->save_for_backward({x});
      return x * x * x;
    }
    static TensorList backward(AutogradContext* ctx, TensorList grads) {
      Tensor x = ctx->get_saved_variables()[0];
      return {grads[0] * x * x * 3.0};
    }
  };
  REQUIRE(gradgradcheck([](const TensorList& in) { return Cube::apply(in[0]); }, {make({3})}));
}

TEST_CASE("a TensorList argument counts one input per element", "[function]") {
  struct SumAll : Function<SumAll> {
    static Tensor forward(AutogradContext*, TensorList xs, double scale) {
      Tensor total = xs[0] * scale;
      for (size_t i = 1; i < xs.size(); ++i) total = total + xs[i] * scale;
      return total;
    }
    static TensorList backward(AutogradContext*, TensorList grads) {
      return {grads[0] * 2.0, grads[0] * 2.0, Tensor()};
    }
  };
  Tensor a = make({2}), b = make({2});
  SumAll::apply(TensorList{a, b}, 2.0).sum().backward();
  REQUIRE(values(a.grad()) == std::vector<double>{2, 2});
  REQUIRE(values(b.grad()) == std::vector<double>{2, 2});
}

TEST_CASE("saved_data holds small values and checks their kind", "[function]") {
  autograd::SavedValue i = 3, d = 2.5, s = std::string("mean"), l = std::vector<int64_t>{1, 2}, b = true;
  REQUIRE(i.toInt() == 3);
  REQUIRE(i.toDouble() == 3.0);
  REQUIRE(d.toDouble() == 2.5);
  REQUIRE(s.toStringRef() == "mean");
  REQUIRE(l.toIntVector() == std::vector<int64_t>{1, 2});
  REQUIRE(b.toBool());
  REQUIRE_THROWS_WITH(d.toInt(), Catch::Contains("a double"));
}

}  // namespace
}  // namespace brisk::test
