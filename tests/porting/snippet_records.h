#pragma once
// What the snippets of the corpus recorded (tests/porting/snippet.h's record()), and their
// JSON line, the format of tests/fixtures/libtorch_snippets.jsonl.
#include <cstdint>
#include <string>
#include <vector>

namespace porting {

struct Record {
  std::string key;
  // A tensor's dtype as Brisk names it ("float32", "int64", ...), or "scalar" or "strings".
  std::string dtype;
  std::vector<int64_t> shape;
  std::vector<double> values;
  std::vector<std::string> strings;
};

// The records of the snippets run so far; the runner clears it before each snippet.
std::vector<Record>& records();

// {"snippet": ..., "key": ..., "dtype": ..., "shape": [...], "values": [...], "strings": [...]}
std::string to_json_line(const std::string& snippet, const Record& record);

}  // namespace porting
