// Runners for Tensor::index, index_put_ and masked_select. An index spec is a list of items: an
// int, null (None), "..." (Ellipsis), a bool, {"slice": [start, stop, step]} (nulls absent) or
// {"tensor": k}, the case's input k.
#include "tensor/indexing.h"
#include "tests/reference/runners.h"

namespace brisk::reference {

namespace {

using indexing::Slice;
using indexing::TensorIndex;

std::optional<int64_t> optional_int64(const json& value) {
  return value.is_null() ? std::nullopt : std::optional<int64_t>(value.get<int64_t>());
}

TensorIndex index_item(const json& item, const Inputs& in) {
  if (item.is_null()) return indexing::None;
  if (item.is_boolean()) return item.get<bool>();
  if (item.is_number_integer()) return item.get<int64_t>();
  if (item.is_string()) return TensorIndex(item.get<std::string>().c_str());
  if (item.contains("tensor")) return in.at(item.at("tensor").get<size_t>());
  const json& s = item.at("slice");
  return Slice(optional_int64(s.at(0)), optional_int64(s.at(1)), optional_int64(s.at(2)));
}

std::vector<TensorIndex> indices(const json& p, const Inputs& in) {
  std::vector<TensorIndex> out;
  for (const json& item : p.at("indices")) out.push_back(index_item(item, in));
  return out;
}

// index_put_ runs on a clone of the first input, as the generator's setitem does in PyTorch.
Outputs put(const Inputs& in, const json& p, const Tensor* values) {
  Tensor self = in[0].clone();
  if (values != nullptr) {
    self.index_put_(indices(p, in), *values);
  } else {
    self.index_put_(indices(p, in), scalar(p, "value"));
  }
  return {self};
}

}  // namespace

void add_indexing_runners(RunnerTable& t) {
  t["index_spec"] = {{"x.index(indices)", BRISK_REF_RUN(in[0].index(indices(p, in)))}};
  t["index_put_"] = {{"x.index_put_(indices, values)", BRISK_REF_RUN(put(in, p, &in[1]))}};
  t["index_put_scalar_"] = {{"x.index_put_(indices, value)", BRISK_REF_RUN(put(in, p, nullptr))}};
  t["masked_select"] = {{"masked_select(x, mask)", BRISK_REF_RUN(masked_select(in[0], in[1]))},
                        {"x.masked_select(mask)", BRISK_REF_RUN(in[0].masked_select(in[1]))}};
}

}  // namespace brisk::reference
