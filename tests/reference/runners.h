#pragma once
// The Brisk side of the reference suite: for every op name in tests/fixtures/ops.json,
// the ways of calling it through the public API (free function, Tensor method,
// operator). Each variant must reproduce the case's PyTorch outputs and gradients.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tests/reference/fixture.h"

namespace brisk::reference {

using Inputs = std::vector<Tensor>;
using Outputs = std::vector<Tensor>;
// Calls the op on the case's inputs (after their views) with the case's params.
using RunFn = std::function<Outputs(const Inputs& in, const json& p)>;

struct Variant {
  std::string api;  // how Brisk is called, for failure messages: "a.add(b)"
  RunFn run;
};

using RunnerTable = std::map<std::string, std::vector<Variant>>;

// All runners, keyed by the fixture's op name.
const RunnerTable& runners();

// One file per op family fills its part of the table.
void add_elementwise_runners(RunnerTable& table);
void add_reduction_runners(RunnerTable& table);
void add_linalg_runners(RunnerTable& table);
void add_shape_runners(RunnerTable& table);
void add_inplace_runners(RunnerTable& table);
void add_factory_runners(RunnerTable& table);
void add_indexing_runners(RunnerTable& table);

// Params by name, as the fixture writes them.
inline std::vector<int64_t> ints(const json& p, const char* key) { return p.at(key).get<std::vector<int64_t>>(); }
inline int64_t integer(const json& p, const char* key) { return p.at(key).get<int64_t>(); }
inline bool flag(const json& p, const char* key) { return p.at(key).get<bool>(); }
inline Scalar scalar(const json& p, const char* key) { return scalar_param(p.at(key)); }
inline DType dtype(const json& p, const char* key) { return parse_dtype(p.at(key).get<std::string>()); }

}  // namespace brisk::reference

// A runner whose body is one expression of `in` (the inputs) and `p` (the params),
// giving a Tensor or a braced list of Tensors.
#define BRISK_REF_RUN(...)                                                                                     \
  [](const ::brisk::reference::Inputs& in, const ::brisk::reference::json& p) -> ::brisk::reference::Outputs { \
    (void)in;                                                                                                  \
    (void)p;                                                                                                   \
    return {__VA_ARGS__};                                                                                      \
  }
