#include "tests/porting/snippet.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "tests/porting/snippet_records.h"

namespace porting {
namespace {

#ifdef PORTING_WITH_LIBTORCH
const char* dtype_name(const torch::Tensor& t) {
  switch (t.scalar_type()) {
    case torch::kFloat: return "float32";
    case torch::kDouble: return "float64";
    case torch::kLong: return "int64";
    case torch::kInt: return "int32";
    case torch::kByte: return "uint8";
    case torch::kBool: return "bool";
    case torch::kBFloat16: return "bfloat16";
    case torch::kHalf: return "float16";
    default: return "unsupported";
  }
}

std::vector<double> values_of(const torch::Tensor& t) {
  auto c = t.detach().to(torch::kCPU).to(torch::kDouble).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}
#else
const char* dtype_name(const torch::Tensor& t) { return brisk::dtype_name(t.dtype()); }

std::vector<double> values_of(const torch::Tensor& t) { return t.detach().cpu().to_vector<double>(); }
#endif

}  // namespace

std::vector<Snippet>& snippets() {
  static std::vector<Snippet> all;
  return all;
}

std::vector<Record>& records() {
  static std::vector<Record> all;
  return all;
}

void record(const std::string& key, const torch::Tensor& value) {
  Record r;
  r.key = key;
  r.dtype = dtype_name(value);
  for (int64_t d = 0; d < value.dim(); ++d) r.shape.push_back(value.size(d));
  r.values = values_of(value);
  records().push_back(std::move(r));
}

void record(const std::string& key, double value) {
  Record r;
  r.key = key;
  r.dtype = "scalar";
  r.values = {value};
  records().push_back(std::move(r));
}

void record(const std::string& key, const std::vector<std::string>& value) {
  Record r;
  r.key = key;
  r.dtype = "strings";
  r.strings = value;
  records().push_back(std::move(r));
}

namespace {
std::string json_number(double v) {
  if (std::isnan(v)) return "\"nan\"";
  if (std::isinf(v)) return v > 0 ? "\"inf\"" : "\"-inf\"";
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.17g", v);
  return buffer;
}
}  // namespace

std::string to_json_line(const std::string& snippet, const Record& r) {
  std::ostringstream out;
  out << "{\"snippet\": \"" << snippet << "\", \"key\": \"" << r.key << "\", \"dtype\": \"" << r.dtype
      << "\", \"shape\": [";
  for (size_t i = 0; i < r.shape.size(); ++i) out << (i ? ", " : "") << r.shape[i];
  out << "], \"values\": [";
  for (size_t i = 0; i < r.values.size(); ++i) out << (i ? ", " : "") << json_number(r.values[i]);
  out << "], \"strings\": [";
  for (size_t i = 0; i < r.strings.size(); ++i) out << (i ? ", " : "") << '"' << r.strings[i] << '"';
  out << "]}";
  return out.str();
}

}  // namespace porting
