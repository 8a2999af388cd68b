#pragma once
// The harness of the libtorch snippet corpus (libtorch_snippets.cc): the same source compiles
// against Brisk, with `namespace torch = brisk;`, and against libtorch
// (tools/fixtures/gen_libtorch_snippets.sh, which writes tests/fixtures/libtorch_snippets.jsonl
// from libtorch's results). A snippet is written as a libtorch user writes it and records
// the values that show it did the same thing.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#ifdef PORTING_WITH_LIBTORCH
#include <torch/torch.h>
#else
#include "brisk/brisk.h"
namespace torch = brisk;
#endif

namespace porting {

// Records `value` under `key` for the snippet that runs.
void record(const std::string& key, const torch::Tensor& value);
void record(const std::string& key, double value);
void record(const std::string& key, const std::vector<std::string>& value);

struct Snippet {
  std::string name;
  std::function<void(const std::string& scratch_dir)> run;
};
std::vector<Snippet>& snippets();
struct RegisterSnippet {
  RegisterSnippet(std::string name, std::function<void(const std::string&)> run) {
    snippets().push_back({std::move(name), std::move(run)});
  }
};

}  // namespace porting

// SNIPPET(name) { ... } defines and registers a snippet; `dir` is a scratch directory for
// files it saves.
#define SNIPPET(name)                                                             \
  static void snippet_##name(const std::string& dir);                              \
  static porting::RegisterSnippet register_##name(#name, snippet_##name); \
  static void snippet_##name([[maybe_unused]] const std::string& dir)
