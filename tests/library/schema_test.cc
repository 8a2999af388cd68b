// Parsing op schemas in PyTorch's shape, and the errors for what a kernel cannot take.
#include "library/schema.h"

#include <catch2/catch.hpp>

#include "tensor/error.h"

namespace brisk::library {
namespace {

using Catch::Matchers::Contains;

TEST_CASE("schemas of every argument and return type parse") {
  Schema s = parse_schema("op(Tensor x, Tensor[] xs, int n, float s, bool flag, str mode, int[] dims) -> Tensor");
  CHECK(s.name == "op");
  REQUIRE(s.arguments.size() == 7);
  CHECK(s.arguments[0].type == ArgType::Tensor);
  CHECK(s.arguments[1].type == ArgType::TensorList);
  CHECK(s.arguments[2].type == ArgType::Int);
  CHECK(s.arguments[3].type == ArgType::Float);
  CHECK(s.arguments[4].type == ArgType::Bool);
  CHECK(s.arguments[5].type == ArgType::Str);
  CHECK(s.arguments[6].type == ArgType::IntList);
  CHECK(s.arguments[6].name == "dims");
  CHECK(s.returns == Returns{Returns::Kind::Tensor, 0});
  CHECK(s.str() == "op(Tensor x, Tensor[] xs, int n, float s, bool flag, str mode, int[] dims) -> Tensor");

  CHECK(parse_schema("f(Tensor x)->Tensor[]").returns == Returns{Returns::Kind::TensorList, 0});
  Schema tuple = parse_schema("  f_backward( Tensor g , Tensor x ) -> ( Tensor , Tensor )  ");
  CHECK(tuple.returns == Returns{Returns::Kind::Tuple, 2});
  CHECK(tuple.str() == "f_backward(Tensor g, Tensor x) -> (Tensor, Tensor)");
  CHECK(parse_schema("make() -> Tensor").arguments.empty());
}

TEST_CASE("a schema a kernel cannot take is refused, quoting it and saying why") {
  CHECK_THROWS_WITH(
      parse_schema("f(Tensor x) -> int"),
      Contains("schema \"f(Tensor x) -> int\": an op returns Tensor, Tensor[] or (Tensor, ...), not int"));
  CHECK_THROWS_WITH(parse_schema("f(double x) -> Tensor"), Contains("unsupported type 'double'"));
  CHECK_THROWS_WITH(parse_schema("f(float[] x) -> Tensor"), Contains("unsupported type 'float[]'"));
  CHECK_THROWS_WITH(parse_schema("f(Tensor? x) -> Tensor"), Contains("optional types are not supported"));
  CHECK_THROWS_WITH(parse_schema("f(Tensor(a!) x) -> Tensor"), Contains("alias annotations are not supported"));
  CHECK_THROWS_WITH(parse_schema("f(float s=1.0) -> Tensor"), Contains("argument 's' has a default"));
  CHECK_THROWS_WITH(parse_schema("f(Tensor x, Tensor x) -> Tensor"), Contains("argument name 'x' is used twice"));
  CHECK_THROWS_WITH(parse_schema("f(Tensor x) -> (Tensor, int)"), Contains("a returned tuple holds Tensors only"));
  CHECK_THROWS_WITH(parse_schema("f(Tensor x)"), Contains("expected '->' at column 12"));
  CHECK_THROWS_WITH(parse_schema("f(Tensor x) -> Tensor extra"), Contains("unexpected text after the returns"));
  CHECK_THROWS_WITH(parse_schema("(Tensor x) -> Tensor"), Contains("expected the op's name"));
}

}  // namespace
}  // namespace brisk::library
