// gradcheck of the view ops, copies, conversions, joining and splitting.
#include "tensor/autograd_meta.h"
#include "tests/autograd/test_util.h"

namespace brisk::test {
namespace {

using UnaryFn = std::function<Tensor(const Tensor&)>;

// Checks op on a contiguous and a non-contiguous input of `shape`.
void check_view(const UnaryFn& op, const Shape& shape) {
  for (Layout layout : {Layout::Contiguous, Layout::Transposed, Layout::Strided}) {
    Tensor x = make(shape, Values::Normal, layout);
    INFO(fmt::format("shape {} strides {}", x.sizes(), x.strides()));
    REQUIRE(gradcheck([&](const TensorList& in) { return op(in[0]); }, {x}));
  }
}

TEST_CASE("gradcheck view, reshape, flatten", "[gradcheck][views]") {
  check_view([](const Tensor& x) { return x.contiguous().view({4, 3}); }, {3, 4});
  check_view([](const Tensor& x) { return x.reshape({2, -1}); }, {3, 4});
  check_view([](const Tensor& x) { return x.reshape({12}); }, {3, 4});
  check_view([](const Tensor& x) { return x.flatten(); }, {2, 3, 2});
  check_view([](const Tensor& x) { return x.flatten(1); }, {2, 3, 2});
}

TEST_CASE("gradcheck permute, transpose, t", "[gradcheck][views]") {
  check_view([](const Tensor& x) { return x.permute({2, 0, 1}); }, {2, 3, 4});
  check_view([](const Tensor& x) { return x.permute({-1, 0, 1}); }, {2, 3, 4});
  check_view([](const Tensor& x) { return x.transpose(0, 2); }, {2, 3, 4});
  check_view([](const Tensor& x) { return x.t(); }, {3, 4});
  check_view([](const Tensor& x) { return x.t(); }, {3});
}

TEST_CASE("gradcheck narrow and slice, with steps and negative bounds", "[gradcheck][views]") {
  check_view([](const Tensor& x) { return x.narrow(1, 1, 2); }, {3, 4});
  check_view([](const Tensor& x) { return x.narrow(-1, -3, 2); }, {3, 4});
  check_view([](const Tensor& x) { return x.slice(0, 1, std::nullopt); }, {3, 4});
  check_view([](const Tensor& x) { return x.slice(1, std::nullopt, std::nullopt, 2); }, {3, 5});
  check_view([](const Tensor& x) { return x.slice(1, -4, -1, 2); }, {3, 5});
}

TEST_CASE("gradcheck select and indexing", "[gradcheck][views]") {
  check_view([](const Tensor& x) { return x.select(1, 2); }, {3, 4});
  check_view([](const Tensor& x) { return x.select(0, -1); }, {3, 4});
  check_view([](const Tensor& x) { return x[1]; }, {2, 3, 4});
}

TEST_CASE("gradcheck expand", "[gradcheck][views]") {
  check_view([](const Tensor& x) { return x.expand({3, 2, 4}); }, {2, 1});
  REQUIRE(gradcheck([](const TensorList& in) { return in[0].expand({2, 3}); }, {make({3})}));
  REQUIRE(gradcheck([](const TensorList& in) { return in[0].expand_as(in[1]) * in[1]; }, {make({1, 3}), make({4, 3})}));
}

TEST_CASE("gradcheck squeeze and unsqueeze", "[gradcheck][views]") {
  check_view([](const Tensor& x) { return x.unsqueeze(1).unsqueeze(0); }, {3, 4});
  check_view([](const Tensor& x) { return x.unsqueeze(-1); }, {3, 4});
  REQUIRE(gradcheck([](const TensorList& in) { return in[0].squeeze(); }, {make({3, 1, 2, 1})}));
  REQUIRE(gradcheck([](const TensorList& in) { return in[0].squeeze(1); }, {make({3, 1, 2})}));
  REQUIRE(gradcheck([](const TensorList& in) { return in[0].squeeze(0); }, {make({3, 1, 2})}));
}

TEST_CASE("gradcheck contiguous and clone", "[gradcheck][views]") {
  check_view([](const Tensor& x) { return x.contiguous(); }, {3, 4});
  check_view([](const Tensor& x) { return x.clone(); }, {3, 4});
}

TEST_CASE("contiguous() of a contiguous tensor is the tensor itself", "[views]") {
  Tensor x = make({2, 3});
  REQUIRE(x.contiguous().is_same(x));
  Tensor t = x.t();
  REQUIRE_FALSE(t.contiguous().is_same(t));
  REQUIRE(t.contiguous().is_contiguous());
}

TEST_CASE("views of a tensor that requires grad are marked as views", "[views]") {
  Tensor x = make({3, 4});
  REQUIRE(x.narrow(0, 0, 1).autograd_meta().is_view);
  REQUIRE(x.t().autograd_meta().is_view);
  REQUIRE_FALSE(x.clone().autograd_meta().is_view);
  Tensor plain = on_test_device(randn({3, 4}));
  REQUIRE(plain.t().autograd_meta_if_exists() == nullptr);
}

TEST_CASE("to(dtype) sends the gradient back in the input's dtype", "[views]") {
  Tensor x = on_test_device(tensor<float>({1.5f, -2.0f})).requires_grad_();
  Tensor y = x.to(kFloat64);
  REQUIRE(y.dtype() == kFloat64);
  REQUIRE(y.grad_fn() != nullptr);
  (y * y).sum().backward();
  REQUIRE(x.grad().dtype() == kFloat32);
  REQUIRE(x.grad().to_vector<float>() == std::vector<float>{3.0f, -4.0f});
  REQUIRE(x.to(kFloat32).is_same(x));
  REQUIRE_FALSE(x.to(kInt64).requires_grad());
}

TEST_CASE("to(device) of the same device is the tensor itself and keeps the history", "[views]") {
  Tensor x = make({2});
  REQUIRE(x.to(test_device()).is_same(x));
  // The shorthands of the devices that have one.
  if (x.is_cpu()) REQUIRE(x.cpu().is_same(x));
  if (x.is_cuda()) REQUIRE(x.cuda().is_same(x));
  REQUIRE(x.to(test_device(), kFloat64).is_same(x));
}

TEST_CASE("gradcheck cat along each dim, with broadcast-free mixed sizes", "[gradcheck][join]") {
  Tensor a = make({2, 3}), b = make({1, 3}), c = make({3, 3}, Values::Normal, Layout::Transposed);
  REQUIRE(gradcheck([](const TensorList& in) { return cat(in, 0); }, {a, b, c}));
  Tensor d = make({2, 1}), e = make({2, 4}, Values::Normal, Layout::Strided);
  REQUIRE(gradcheck([](const TensorList& in) { return cat(in, -1); }, {a, d, e}));
}

TEST_CASE("cat sends no gradient to inputs that do not require it", "[join]") {
  Tensor a = make({2}), b = ones({3}, TensorOptions(kFloat64).device(test_device()));
  Tensor y = cat({a, b});
  y.sum().backward();
  REQUIRE(values(a.grad()) == std::vector<double>{1, 1});
  REQUIRE_FALSE(b.grad().defined());
}

TEST_CASE("gradcheck stack along each dim", "[gradcheck][join]") {
  for (int64_t dim : {0, 1, 2, -1}) {
    REQUIRE(gradcheck([dim](const TensorList& in) { return stack(in, dim); },
                      {make({2, 3}), make({2, 3}, Values::Normal, Layout::Transposed), make({2, 3})}));
  }
}

TEST_CASE("gradcheck split and chunk, using all or some of the pieces", "[gradcheck][join]") {
  auto weighted = [](const TensorList& pieces) {
    Tensor total = pieces[0].sum() * 1.0;
    for (size_t i = 1; i < pieces.size(); ++i) total = total + (pieces[i] * pieces[i]).sum() * double(i + 1);
    return total;
  };
  REQUIRE(gradcheck([&](const TensorList& in) { return weighted(in[0].split(2, 1)); }, {make({3, 5})}));
  REQUIRE(gradcheck(
      [&](const TensorList& in) {
        return weighted(split(in[0], {1, 3, 1}, 1));
      },
      {make({3, 5}, Values::Normal, Layout::Transposed)}));
  REQUIRE(gradcheck([&](const TensorList& in) { return weighted(in[0].chunk(3, 0)); }, {make({7, 2})}));
  // Only the last piece is used: the others' gradients are zero.
  REQUIRE(gradcheck([](const TensorList& in) { return in[0].chunk(2, 1)[1].exp(); }, {make({2, 4})}));
}

TEST_CASE("split and chunk return views sizes as PyTorch", "[join]") {
  Tensor x = make({7, 2});
  auto pieces = x.chunk(3);
  REQUIRE(pieces.size() == 3);
  REQUIRE(pieces[0].sizes() == Shape{3, 2});
  REQUIRE(pieces[2].sizes() == Shape{1, 2});
  REQUIRE(pieces[1].storage() == x.storage());
  REQUIRE(x.split(3).size() == 3);
  REQUIRE_THROWS_WITH(x.chunk(0), Catch::Contains("chunk"));
}

}  // namespace
}  // namespace brisk::test
