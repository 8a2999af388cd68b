// Custom differentiable functions (autograd::Function).
#include "autograd/function.h"

#include "profiler/profiler.h"
#include "tests/autograd/test_util.h"

namespace brisk::test {
namespace {

using autograd::AutogradContext;
using autograd::Function;
using Catch::Contains;

// c * g for a float64 CPU tensor g, read as contiguous memory through data_ptr, as a raw
// kernel does: right only when g is contiguous.
Tensor raw_scale(const Tensor& g, double c) {
  Tensor out = empty(g.sizes(), kFloat64);
  const double* in = g.data_ptr<double>();
  double* o = out.data_ptr<double>();
  for (int64_t i = 0; i < g.numel(); ++i) o[i] = c * in[i];
  return out;
}

// y = 3 x with a raw-kernel backward.
struct TripleRaw : Function<TripleRaw> {
  static Tensor forward(AutogradContext*, Tensor x) { return x * 3.0; }
  static TensorList backward(AutogradContext*, TensorList grads) { return {raw_scale(grads[0], 3.0)}; }
};

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

TEST_CASE("a backward reading grad_outputs through data_ptr gets contiguous gradients", "[function]") {
  // sum() hands on an expanded gradient (stride 0).
  Tensor x = make({2, 3});
  TripleRaw::apply(x).sum().backward();
  REQUIRE(values(x.grad()) == std::vector<double>(6, 3.0));

  // A transpose after the Function hands on a gradient laid out transposed.
  Tensor w = make({2, 3});
  Tensor g = tensor({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, {3, 2}, kFloat64);
  TripleRaw::apply(w).transpose(0, 1).backward(g);
  REQUIRE(values(w.grad()) == values(g.transpose(0, 1) * 3.0));
}

TEST_CASE("set_contiguous_grads(false) hands backward the gradients with their strides", "[function]") {
  struct SeesStrides : Function<SeesStrides> {
    static Tensor forward(AutogradContext* ctx, Tensor x) {
      ctx->set_contiguous_grads(false);
      return x * 2.0;
    }
    static TensorList backward(AutogradContext*, TensorList grads) {
      REQUIRE(grads[0].stride(0) == 0);
      return {grads[0] * 2.0};
    }
  };
  Tensor x = make({3});
  SeesStrides::apply(x).sum().backward();
  REQUIRE(values(x.grad()) == std::vector<double>{2, 2, 2});
}

TEST_CASE("gradcheck catches a backward that reads strided gradients as contiguous", "[function][gradcheck]") {
  struct TripleRawStrided : Function<TripleRawStrided> {
    static Tensor forward(AutogradContext* ctx, Tensor x) {
      ctx->set_contiguous_grads(false);
      return x * 3.0;
    }
    static TensorList backward(AutogradContext*, TensorList grads) { return {raw_scale(grads[0], 3.0)}; }
  };
  auto fn = [](const TensorList& in) { return TripleRawStrided::apply(in[0]); };
  REQUIRE_THROWS_WITH(gradcheck(fn, {make({4})}), Contains("gradcheck: backward is wrong with an expanded incoming "
                                                           "gradient (stride 0 in dim 0)"));
  REQUIRE_THROWS_WITH(gradcheck(fn, {make({1, 3, 1})}),
                      Contains("backward is wrong with an expanded incoming gradient (stride 0 in dim 1)"));
  // With the default, the same backward gets contiguous gradients and passes.
  REQUIRE(gradcheck([](const TensorList& in) { return TripleRaw::apply(in[0]).transpose(0, 1); }, {make({2, 3})}));
}

TEST_CASE("gradcheck catches a backward that handles expanded but not transposed gradients", "[function][gradcheck]") {
  // Reads row i of a 2-d gradient at stride(0) * i but assumes unit steps within a row.
  struct RowsOnly : Function<RowsOnly> {
    static Tensor forward(AutogradContext* ctx, Tensor x) {
      ctx->set_contiguous_grads(false);
      return x * 3.0;
    }
    static TensorList backward(AutogradContext*, TensorList grads) {
      const Tensor& g = grads[0];
      Tensor out = empty(g.sizes(), kFloat64);
      for (int64_t i = 0; i < g.size(0); ++i) {
        for (int64_t j = 0; j < g.size(1); ++j) {
          out.data_ptr<double>()[i * g.size(1) + j] = 3.0 * g.data_ptr<double>()[i * g.stride(0) + j];
        }
      }
      return {out};
    }
  };
  REQUIRE_THROWS_WITH(gradcheck([](const TensorList& in) { return RowsOnly::apply(in[0]); }, {make({3, 4})}),
                      Contains("backward is wrong with a transposed incoming gradient") &&
                          Contains("gradient of input 0 (shape [3, 4])"));
}

TEST_CASE("gradcheck catches a forward that reads strided inputs as contiguous", "[function][gradcheck]") {
  struct RawForward : Function<RawForward> {
    static Tensor forward(AutogradContext*, Tensor x) { return raw_scale(x, 3.0); }
    static TensorList backward(AutogradContext*, TensorList grads) { return {grads[0] * 3.0}; }
  };
  REQUIRE_THROWS_WITH(gradcheck([](const TensorList& in) { return RawForward::apply(in[0]); }, {make({2, 3})}),
                      Contains("forward is wrong with non-contiguous inputs (input 0 transposed)"));
  REQUIRE_THROWS_WITH(gradcheck([](const TensorList& in) { return RawForward::apply(in[0]); }, {make({5})}),
                      Contains("forward is wrong with non-contiguous inputs (input 0 strided)"));
}

TEST_CASE("gradcheck catches a backward that is wrong only for non-contiguous inputs", "[function][gradcheck]") {
  // The gradient 2 x, with x read as contiguous memory in backward.
  struct SquareRawSaved : Function<SquareRawSaved> {
    static Tensor forward(AutogradContext* ctx, Tensor x) {
      ctx->save_for_backward({x});
      return x * x;
    }
    static TensorList backward(AutogradContext* ctx, TensorList grads) {
      Tensor x = ctx->get_saved_variables()[0];
      return {raw_scale(x, 2.0) * grads[0]};
    }
  };
  REQUIRE_THROWS_WITH(gradcheck([](const TensorList& in) { return SquareRawSaved::apply(in[0]); }, {make({2, 3})}),
                      Contains("backward is wrong with non-contiguous inputs (input 0 transposed)"));
}

TEST_CASE("reading a saved tensor beyond those saved names the function and the count", "[function]") {
  struct ReadsTwo : Function<ReadsTwo> {
    static Tensor forward(AutogradContext* ctx, Tensor x) {
      ctx->save_for_backward({x});
      return x * 2.0;
    }
    static TensorList backward(AutogradContext* ctx, TensorList grads) {
      return {grads[0] * ctx->get_saved_variables()[1]};
    }
  };
  REQUIRE_THROWS_WITH(ReadsTwo::apply(make({2})).sum().backward(),
                      Contains("ReadsTwo: get_saved_variables()[1] is out of range: forward saved 1 tensor with "
                               "save_for_backward"));
}

// x *= 2 in place, declared with mark_dirty.
struct DoubleInPlace : Function<DoubleInPlace> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    x.mul_(2.0);
    ctx->mark_dirty({x});
    return x;
  }
  static TensorList backward(AutogradContext*, TensorList grads) { return {grads[0] * 2.0}; }
};

TEST_CASE("mark_dirty: the modified input is the output and its history goes through the function", "[function]") {
  Tensor a = make({3});
  Tensor b = a * 1.5;
  const uint32_t version = b.version();
  Tensor c = DoubleInPlace::apply(b);
  REQUIRE(c.is_same(b));
  REQUIRE(b.version() > version);
  REQUIRE(b.grad_fn()->name().find("DoubleInPlace") != std::string::npos);
  REQUIRE(close(b, a * 3.0));
  c.sum().backward();
  REQUIRE(values(a.grad()) == std::vector<double>{3, 3, 3});
}

TEST_CASE("mark_dirty: a tensor saved before the function modified it is reported in backward", "[function]") {
  Tensor a = make({3});
  Tensor b = a * 1.5;
  Tensor s = b.sin();
  DoubleInPlace::apply(b);
  REQUIRE_THROWS_WITH(s.sum().backward(), Contains("modified by an inplace operation") &&
                                              Contains("saved for the backward of SinBackward"));
}

TEST_CASE("mark_dirty: a leaf that requires grad cannot be modified", "[function]") {
  REQUIRE_THROWS_WITH(DoubleInPlace::apply(make({3})),
                      Contains("DoubleInPlace: a leaf Variable that requires grad is being used in an in-place "
                               "operation"));
}

TEST_CASE("a forward that modifies an input without mark_dirty is an error naming the function and the argument",
          "[function]") {
  struct Forgets : Function<Forgets> {
    static Tensor forward(AutogradContext*, double scale, Tensor x) {
      x.mul_(scale);
      return x * 1.0;
    }
    static TensorList backward(AutogradContext*, TensorList grads) { return {Tensor(), grads[0] * 2.0}; }
  };
  Tensor b = make({3}) * 1.0;
  REQUIRE_THROWS_WITH(Forgets::apply(2.0, b),
                      Contains("Forgets: forward modified argument 1 (") && Contains("without ctx->mark_dirty"));

  struct NotReturned : Function<NotReturned> {
    static Tensor forward(AutogradContext* ctx, Tensor x) {
      x.mul_(2.0);
      ctx->mark_dirty({x});
      return x * 1.0;
    }
    static TensorList backward(AutogradContext*, TensorList grads) { return {grads[0] * 2.0}; }
  };
  REQUIRE_THROWS_WITH(NotReturned::apply(make({3}) * 1.0),
                      Contains("NotReturned: forward argument 0") && Contains("marked dirty with mark_dirty but is "
                                                                              "not among the outputs"));
}

TEST_CASE("a forward may update an input that does not require grad, such as a running statistic", "[function]") {
  struct CountsCalls : Function<CountsCalls> {
    static Tensor forward(AutogradContext*, Tensor x, Tensor calls) {
      calls.add_(1.0);
      return x * 2.0;
    }
    static TensorList backward(AutogradContext*, TensorList grads) { return {grads[0] * 2.0, Tensor()}; }
  };
  Tensor calls = zeros({1}, kFloat64);
  Tensor x = make({2});
  CountsCalls::apply(x, calls).sum().backward();
  REQUIRE(values(calls) == std::vector<double>{1});
  REQUIRE(values(x.grad()) == std::vector<double>{2, 2});
}

// x^2 with a raw-kernel backward that cannot be differentiated.
struct SquareOnce : Function<SquareOnce> {
  static constexpr bool once_differentiable = true;
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    ctx->save_for_backward({x});
    return x * x;
  }
  static TensorList backward(AutogradContext* ctx, TensorList grads) {
    Tensor x = ctx->get_saved_variables()[0];
    Tensor out = empty(x.sizes(), kFloat64);
    for (int64_t i = 0; i < x.numel(); ++i) {
      out.data_ptr<double>()[i] = 2.0 * x.data_ptr<double>()[i] * grads[0].data_ptr<double>()[i];
    }
    return {out};
  }
};

TEST_CASE("once_differentiable: the first gradient works, a gradient of it names the function", "[function]") {
  Tensor x = tensor({1.0, 2.0, 3.0}, kFloat64).requires_grad_();
  // Without once_differentiable the cube's part would arrive and SquareOnce's would be a silent zero.
  Tensor loss = SquareOnce::apply(x).sum() + (x * x * x).sum();
  TensorList first = autograd::grad({loss}, {x}, {}, true, true);
  REQUIRE(values(first[0]) == std::vector<double>{2 + 3, 4 + 12, 6 + 27});
  REQUIRE_THROWS_WITH(autograd::grad({first[0].sum()}, {x}),
                      Contains("SquareOnce is once_differentiable: its backward cannot be differentiated"));

  // Plain backward is unaffected.
  SquareOnce::apply(x).sum().backward();
  REQUIRE(values(x.grad()) == std::vector<double>{2, 4, 6});
}

TEST_CASE("a custom function's forward is an op event of the profiler, named as its node", "[function][profiler]") {
  Tensor x = make({3});
  profiler::Profiler prof;
  prof.start();
  Tensor y = MulConstant::apply(x, 2.0);
  y.sum().backward();
  prof.stop();
  const std::string name = y.grad_fn()->name();
  const profiler::Event* forward = nullptr;
  const profiler::Event* backward = nullptr;
  for (const profiler::Event& e : prof.events()) {
    if (e.name == name && e.category == profiler::Category::Op) forward = &e;
    if (e.name == name && e.category == profiler::Category::Autograd) backward = &e;
  }
  REQUIRE(forward != nullptr);
  REQUIRE(backward != nullptr);
  REQUIRE(forward->end_ns <= backward->start_ns);
  // The ops forward runs are nested in its event.
  bool mul_inside = false;
  for (const profiler::Event& e : prof.events()) {
    mul_inside |= e.name == "mul" && e.start_ns >= forward->start_ns && e.end_ns <= forward->end_ns;
  }
  REQUIRE(mul_inside);
}

}  // namespace
}  // namespace brisk::test
