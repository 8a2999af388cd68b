// OrderedDict: insertion order, lookups that name a missing key, and its items read both as
// std::pair (structured bindings, .first / .second) and as libtorch's OrderedDict::Item
// (key(), value(), *item), as a module's named_parameters() hands them out.
#include "nn/ordered_dict.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "nn/modules/batchnorm.h"
#include "nn/modules/linear.h"
#include "nn/sequential.h"

using namespace brisk;
using Catch::Matchers::Contains;

TEST_CASE("OrderedDict items: libtorch's key() and value() next to pair access", "[nn][ordered_dict]") {
  nn::OrderedDict<int> dict{{"b", 2}, {"a", 1}};
  dict.insert("c", 3);
  std::vector<std::string> keys;
  int sum = 0;
  for (auto& item : dict) {
    keys.push_back(item.key());
    CHECK(item.key() == item.first);
    item.value() *= 10;
    sum += *item;
  }
  CHECK(keys == std::vector<std::string>{"b", "a", "c"});
  CHECK(sum == 60);
  for (const auto& [key, value] : dict) CHECK(dict.at(key) == value);
  CHECK(dict.front().key() == "b");
  CHECK(dict.back().pair() == std::pair<std::string, int>("c", 30));
  CHECK_FALSE(dict.is_empty());
  CHECK(nn::OrderedDict<int>().is_empty());
  CHECK_THROWS_WITH(nn::OrderedDict<int>().front(), Contains("front() of an empty dictionary"));
  CHECK_THROWS_WITH(dict.at("z"), Contains("no key \"z\""));
  CHECK_THROWS_WITH(dict.insert("a", 0), Contains("key \"a\" already present"));
}

TEST_CASE("named_parameters, named_buffers and named_modules iterate as in libtorch", "[nn][ordered_dict]") {
  nn::Sequential model(nn::Linear(3, 4), nn::BatchNorm1d(4));
  std::vector<std::string> names;
  for (const auto& p : model->named_parameters()) {
    names.push_back(p.key());
    CHECK(p.value().requires_grad());
    CHECK(p->sizes() == p.value().sizes());
  }
  CHECK(names == std::vector<std::string>{"0.weight", "0.bias", "1.weight", "1.bias"});
  names.clear();
  for (const auto& b : model->named_buffers()) names.push_back(b.key());
  CHECK(names == std::vector<std::string>{"1.running_mean", "1.running_var", "1.num_batches_tracked"});
  names.clear();
  for (const auto& m : model->named_children()) names.push_back(m.key() + ":" + m.value()->name());
  CHECK(names == std::vector<std::string>{"0:Linear", "1:BatchNorm1d"});
  CHECK(model->named_modules().front().key().empty());
  // libtorch's name of the type.
  OrderedDict<std::string, Tensor> parameters = model->named_parameters();
  CHECK(parameters.size() == 4);
}
