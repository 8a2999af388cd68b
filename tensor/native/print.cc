// Printing in the format of PyTorch's repr (torch/_tensor_str.py) with its default print
// options: 4 digits of precision, lines of 80 characters, and summaries ("...") showing 3
// items at each edge of every dim for tensors of more than 1000 elements.
#include <algorithm>
#include <cmath>
#include <ostream>

#include "tensor/native/ops.h"

namespace brisk::native {
namespace {

constexpr int kPrecision = 4;
constexpr int64_t kEdgeItems = 3;
constexpr int64_t kThreshold = 1000;
constexpr size_t kLineWidth = 80;
constexpr const char* kPrefix = "tensor(";

// How every element of one tensor is written: one mode and one common width, chosen from
// all the elements that get printed.
class Formatter {
 public:
  explicit Formatter(const std::vector<double>& values) {
    double lo = INFINITY, hi = 0;
    bool any = false;
    for (double v : values) {
      if (!std::isfinite(v) || v == 0) continue;
      any = true;
      lo = std::min(lo, std::fabs(v));
      hi = std::max(hi, std::fabs(v));
      int_mode_ = int_mode_ && v == std::ceil(v);
    }
    if (!any) return;
    sci_mode_ = hi / lo > 1000.0 || hi > 1.0e8 || (!int_mode_ && lo < 1.0e-4);
    for (double v : values) {
      if (!std::isfinite(v) || v == 0) continue;
      // Integral floats print with a trailing '.', which raw() adds and the width counts.
      width_ = std::max(width_, raw(v).size());
    }
  }

  template <typename T>
  explicit Formatter(const std::vector<T>& values) {
    for (T v : values) width_ = std::max(width_, raw(v).size());
  }

  size_t width() const { return width_; }

  template <typename T>
  std::string format(T v) const {
    std::string s = raw(v);
    if (s.size() < width_) s.insert(0, width_ - s.size(), ' ');
    return s;
  }

 private:
  std::string raw(double v) const {
    if (std::isnan(v)) return "nan";
    if (sci_mode_) return fmt::format("{:.{}e}", v, kPrecision);
    if (int_mode_) return fmt::format("{:.0f}", v) + (std::isfinite(v) ? "." : "");
    return fmt::format("{:.{}f}", v, kPrecision);
  }
  std::string raw(int64_t v) const { return std::to_string(v); }
  std::string raw(bool v) const { return v ? "True" : "False"; }

  bool int_mode_ = true;
  bool sci_mode_ = false;
  size_t width_ = 1;
};

// Writes the elements of a dense host array of shape `sizes`, nesting brackets per dim.
template <typename T>
class Printer {
 public:
  Printer(const T* data, const Shape& sizes)
      : data_(data), sizes_(sizes), strides_(contiguous_strides(sizes)), summarize_(shape_numel(sizes) > kThreshold) {
    std::vector<T> shown;
    collect(0, 0, shown);
    formatter_ = std::make_unique<Formatter>(shown);
  }

  std::string str(size_t indent) const { return str(0, 0, indent); }

 private:
  bool elided(size_t d) const { return summarize_ && sizes_[d] > 2 * kEdgeItems; }

  // The indices of dim d that get printed, in order; -1 marks the "..." between the edges.
  std::vector<int64_t> shown_indices(size_t d) const {
    std::vector<int64_t> out;
    if (!elided(d)) {
      for (int64_t i = 0; i < sizes_[d]; ++i) out.push_back(i);
      return out;
    }
    for (int64_t i = 0; i < kEdgeItems; ++i) out.push_back(i);
    out.push_back(-1);
    for (int64_t i = sizes_[d] - kEdgeItems; i < sizes_[d]; ++i) out.push_back(i);
    return out;
  }

  void collect(size_t d, int64_t base, std::vector<T>& out) const {
    if (d == sizes_.size()) {
      out.push_back(data_[base]);
      return;
    }
    for (int64_t i : shown_indices(d)) {
      if (i >= 0) collect(d + 1, base + i * strides_[d], out);
    }
  }

  std::string str(size_t d, int64_t base, size_t indent) const {
    if (d == sizes_.size()) return formatter_->format(data_[base]);
    std::vector<std::string> items;
    bool innermost = d + 1 == sizes_.size();
    for (int64_t i : shown_indices(d)) {
      if (i < 0) {
        items.push_back(innermost ? " ..." : "...");
      } else {
        items.push_back(str(d + 1, base + i * strides_[d], indent + 1));
      }
    }
    std::string out = "[";
    if (innermost) {
      size_t per_line = std::max<size_t>(1, (kLineWidth - std::min(indent, kLineWidth)) / (formatter_->width() + 2));
      for (size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out += i % per_line == 0 ? ",\n" + std::string(indent + 1, ' ') : ", ";
        out += items[i];
      }
    } else {
      std::string sep = "," + std::string(sizes_.size() - d - 1, '\n') + std::string(indent + 1, ' ');
      for (size_t i = 0; i < items.size(); ++i) out += (i > 0 ? sep : "") + items[i];
    }
    return out + "]";
  }

  const T* data_;
  Shape sizes_;
  Shape strides_;
  bool summarize_;
  std::unique_ptr<Formatter> formatter_;
};

template <typename T>
std::string body(const Tensor& t, DType host_dtype) {
  Tensor host = contiguous(to(t, kCPU, host_dtype));
  return Printer<T>(host.data_ptr<T>(), host.sizes()).str(std::string(kPrefix).size());
}

// Python's repr of a tuple: (2, 0) or (5,).
std::string python_tuple(const Shape& s) {
  if (s.size() == 1) return fmt::format("({},)", s[0]);
  return fmt::format("({})", fmt::join(s, ", "));
}

// Appends ", suffix" to the last line, or starts a new line when it would pass 80 columns.
std::string add_suffixes(std::string text, const std::vector<std::string>& suffixes) {
  size_t indent = std::string(kPrefix).size();
  size_t newline = text.rfind('\n');
  size_t last_line = newline == std::string::npos ? text.size() + 2 : text.size() - newline + 1;
  for (const std::string& suffix : suffixes) {
    if (last_line + suffix.size() + 2 > kLineWidth) {
      text += ",\n" + std::string(indent, ' ') + suffix;
      last_line = indent + suffix.size();
    } else {
      text += ", " + suffix;
      last_line += suffix.size() + 2;
    }
  }
  return text + ")";
}

}  // namespace

std::string to_string(const Tensor& t) {
  if (!t.defined()) return "tensor(undefined)";
  std::vector<std::string> suffixes;
  if (!t.is_cpu()) suffixes.push_back(fmt::format("device='{}'", t.device()));
  // PyTorch spells dtypes as Python names; the length matters for where lines wrap.
  std::string dtype_suffix = fmt::format("dtype=torch.{}", t.dtype());
  std::string text;
  if (t.numel() == 0) {
    // With no elements to show, the shape (unless 1-D) and any dtype but float32 are spelled out.
    if (t.dim() != 1) suffixes.push_back("size=" + python_tuple(t.sizes()));
    if (t.dtype() != kFloat32) suffixes.push_back(dtype_suffix);
    text = "[]";
  } else {
    DType d = t.dtype();
    if (d != kFloat32 && d != kInt64 && d != kBool) suffixes.push_back(dtype_suffix);
    if (t.is_floating_point()) {
      text = body<double>(t, kFloat64);
    } else if (d == kBool) {
      text = body<bool>(t, kBool);
    } else {
      text = body<int64_t>(t, kInt64);
    }
  }
  // Autograd node names are not visible here, so only a leaf's requires_grad is shown.
  if (t.requires_grad() && t.is_leaf()) suffixes.push_back("requires_grad=True");
  return add_suffixes(kPrefix + text, suffixes);
}

}  // namespace brisk::native

namespace brisk {

std::string Tensor::str() const { return native::to_string(*this); }

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << native::to_string(t); }

}  // namespace brisk
