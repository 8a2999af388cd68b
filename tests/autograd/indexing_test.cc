// Tensor::index and index_put_ beyond their values (tests/fixtures/ops.json has PyTorch's values
// and gradients): views share memory, writes go through them, autograd's in-place rules hold,
// and what is not supported is refused naming it.
#include "tests/autograd/test_util.h"

namespace brisk::test {
namespace {

using namespace indexing;

TEST_CASE("index without an index tensor is a view, with one a copy", "[index]") {
  Tensor x = arange(12, kFloat64).reshape({3, 4});
  Tensor row = x.index({1});
  row.fill_(-1);
  CHECK(x[1][3].item<double>() == -1);
  Tensor every_other = x.index({Slice(), Slice(None, None, 2)});
  CHECK(every_other.storage() == x.storage());
  CHECK(every_other.sizes() == Shape{3, 2});
  Tensor picked = x.index({Slice(), tensor({0, 3})});
  picked.fill_(100);
  CHECK(x[0][0].item<double>() == 0);
  CHECK(x.index({"...", None}).sizes() == Shape{3, 4, 1});
  CHECK(x.index({Ellipsis, 0}).sizes() == Shape{3});
  CHECK(x.index(std::vector<TensorIndex>{0, Slice(1, 3)}).to_vector<double>() == std::vector<double>{1, 2});
}

TEST_CASE("index_put_ writes through views of the tensor, and returns it", "[index]") {
  Tensor x = zeros({2, 3, 4});
  Tensor view = x.index({1});
  Tensor& same = view.index_put_({Slice(), 0}, 5.0);
  CHECK(&same == &view);
  CHECK(x.index({1, Slice(), 0}).to_vector<float>() == std::vector<float>{5, 5, 5});
  x.index_put_({x.eq(5.0)}, 2.0);
  CHECK(x.sum().item<float>() == 6.0f);
  x.index_put_({0, Slice(), tensor({3, 1})}, ones({3, 1}));  // x[0, :, [3, 1]] = 1 by broadcasting
  CHECK(x.index({0}).sum().item<float>() == 6.0f);
  CHECK(x.index({0, 2, 3}).item<float>() == 1.0f);
}

TEST_CASE("index_put_ with repeated positions keeps the last value", "[index]") {
  Tensor x = zeros({3});
  x.index_put_({tensor({1, 1, -2})}, tensor({1.0f, 2.0f, 3.0f}));
  CHECK(x.to_vector<float>() == std::vector<float>{0, 3, 0});
}

TEST_CASE("index_put_ bumps the version once, so saved tensors notice", "[index][inplace]") {
  Tensor w = make({3});
  Tensor x = w * 2.0;
  Tensor y = x.exp();  // saves its output
  uint32_t before = y.version();
  y.index_put_({0}, 0.0);
  CHECK(y.version() == before + 1);
  CHECK_THROWS(y.sum().backward());
}

TEST_CASE("index_put_ follows autograd's in-place rules", "[index][inplace]") {
  Tensor leaf = make({3, 2});
  CHECK_THROWS_WITH(leaf.index_put_({0}, 1.0), Catch::Contains("index_put_") && Catch::Contains("leaf"));
  Tensor view = (leaf * 1.0).index({0});
  CHECK_THROWS_WITH(view.index_put_({0}, 1.0), Catch::Contains("index_put_") && Catch::Contains("view"));
  {
    NoGradGuard no_grad;
    leaf.index_put_({0, 0}, 1.0);  // allowed without grad mode, as PyTorch
  }
  CHECK(leaf[0][0].item<double>() == 1.0);
  // On a non-leaf: the written places take no gradient from before, the values get theirs.
  Tensor values = make({2});
  Tensor y = leaf * 3.0;
  y.index_put_({1}, values * 2.0);
  y.sum().backward();
  CHECK(leaf.grad().to_vector<double>() == std::vector<double>{3, 3, 0, 0, 3, 3});
  CHECK(values.grad().to_vector<double>() == std::vector<double>{2, 2});
}

TEST_CASE("index refuses what it does not support, naming it", "[index]") {
  Tensor x = zeros({3, 4});
  Tensor rows = tensor({0, 1});
  CHECK_THROWS_WITH(x.index({rows, rows}), Catch::Contains("2 index tensors") && Catch::Contains("not supported"));
  CHECK_THROWS_WITH(x.index({0, 0, 0}), Catch::Contains("too many indices") && Catch::Contains("dimension 2"));
  CHECK_THROWS_WITH(x.index({Slice(None, None, -1)}), Catch::Contains("step"));
  CHECK_THROWS_WITH(x.index({tensor({0, 3})}),
                    Catch::Contains("index 3 is out of bounds") && Catch::Contains("size 3"));
  CHECK_THROWS_WITH(x.index({ones({4}, kBool)}), Catch::Contains("shape of the mask"));
  CHECK_THROWS_WITH(x.index({tensor({0.5f})}), Catch::Contains("long, int, byte or bool"));
  CHECK_THROWS_WITH(x.index({"."}), Catch::Contains("\"...\""));
  CHECK_THROWS_WITH(x.index_put_({tensor({0})}, ones({4}, kFloat64)), Catch::Contains("dtypes match"));
  CHECK_THROWS_WITH(x.index_put_({Slice(1, None)}, ones({3})), Catch::Contains("cannot be broadcast"));
}

TEST_CASE("masked_select on the test device", "[index]") {
  Tensor x = on_test_device(arange(6, kFloat32).reshape({2, 3}));
  Tensor mask = on_test_device(tensor<bool>({true, false, true}, {3}));
  Tensor picked = masked_select(x, mask);
  CHECK(picked.device() == x.device());
  CHECK(picked.to_vector<float>() == std::vector<float>{0, 2, 3, 5});
  CHECK(x.masked_select(x > 2).to_vector<float>() == std::vector<float>{3, 4, 5});
  CHECK_THROWS_WITH(masked_select(x, on_test_device(tensor({1, 0, 1}))), Catch::Contains("bool"));
}

}  // namespace
}  // namespace brisk::test
