// interpolate, composed from index_select (or expand) and elementwise ops, so it runs on
// every device and its gradient comes from autograd. The source indices and weights are
// computed on the host exactly as PyTorch's CPU kernels do (in the input's precision: float
// for float32), then applied one spatial dim at a time; bilinear goes along W first, then H,
// which is also PyTorch's order of the sums.
#include <algorithm>
#include <cmath>

#include "autograd/autocast.h"
#include "autograd/ops.h"
#include "nn/functional.h"

namespace brisk::nn::functional {
namespace {

// One spatial dim's output size and the scale factor that its source positions use (unset
// when the user gave the size).
struct Resize {
  int64_t in, out;
  std::optional<double> scale;
};

// One value for every spatial dim, or one per spatial dim.
template <typename T>
T per_dim(const std::vector<T>& values, size_t d) {
  return values.size() == 1 ? values[0] : values[d];
}

template <typename T>
void check_count(const char* what, const std::vector<T>& values, const Tensor& input, size_t spatial) {
  BRISK_CHECK(values.size() == 1 || values.size() == spatial,
              "interpolate: {} {} should have 1 or {} values (the spatial dims of input {})", what, values, spatial,
              input.sizes());
}

std::vector<Resize> resizes(const Tensor& input, const InterpolateOptions& options) {
  const auto& size = options.size();
  const auto& scale_factor = options.scale_factor();
  BRISK_CHECK(size.has_value() != scale_factor.has_value(), "interpolate: give exactly one of size and scale_factor");
  const size_t spatial = static_cast<size_t>(input.dim() - 2);
  if (size) check_count("size", *size, input, spatial);
  if (scale_factor) check_count("scale_factor", *scale_factor, input, spatial);
  std::vector<Resize> result;
  for (size_t d = 0; d < spatial; ++d) {
    const int64_t in = input.size(static_cast<int64_t>(d) + 2);
    BRISK_CHECK(in > 0, "interpolate: input {} is empty in spatial dim {}", input.sizes(), d);
    Resize r{in, 0, std::nullopt};
    if (size) {
      r.out = per_dim(*size, d);
    } else {
      r.scale = per_dim(*scale_factor, d);
      BRISK_CHECK(*r.scale > 0, "interpolate: scale_factor {} must be positive", *scale_factor);
      r.out = static_cast<int64_t>(std::floor(static_cast<double>(in) * *r.scale));
      if (options.recompute_scale_factor()) r.scale.reset();
    }
    BRISK_CHECK(r.out > 0, "interpolate: the output size of input {} would be {} in spatial dim {} (must be positive)",
                input.sizes(), r.out, d);
    result.push_back(r);
  }
  return result;
}

// PyTorch's compute_scales_value: the step between the source positions of neighboring
// outputs.
template <typename T>
T source_step(const Resize& r) {
  return r.scale && *r.scale > 0 ? static_cast<T>(1.0 / *r.scale) : static_cast<T>(r.in) / static_cast<T>(r.out);
}

// PyTorch's nearest_idx (legacy "nearest"): floor(out_index * step) in float.
std::vector<int64_t> nearest_sources(const Resize& r) {
  std::vector<int64_t> index(r.out);
  const float step = source_step<float>(r);
  for (int64_t i = 0; i < r.out; ++i) {
    if (r.out == r.in) {
      index[i] = i;
    } else if (r.out == 2 * r.in) {
      index[i] = i >> 1;
    } else {
      index[i] = std::min(static_cast<int64_t>(std::floor(static_cast<float>(i) * step)), r.in - 1);
    }
  }
  return index;
}

// Each output's two source indices and their weights along one dim.
struct LinearTaps {
  std::vector<int64_t> low, high;
  std::vector<double> low_weight, high_weight;
};

// PyTorch's area_pixel_compute_scale, area_pixel_compute_source_index and
// guard_index_and_lambda, computed in T.
template <typename T>
LinearTaps linear_taps(const Resize& r, bool align_corners) {
  const T step =
      align_corners ? (r.out > 1 ? static_cast<T>(r.in - 1) / static_cast<T>(r.out - 1) : T(0)) : source_step<T>(r);
  LinearTaps taps;
  for (int64_t i = 0; i < r.out; ++i) {
    const T source =
        align_corners ? step * static_cast<T>(i) : std::max(step * (static_cast<T>(i) + T(0.5)) - T(0.5), T(0));
    const int64_t low = std::min(static_cast<int64_t>(std::floor(source)), r.in - 1);
    const T high_weight = std::min(std::max(source - static_cast<T>(low), T(0)), T(1));
    taps.low.push_back(low);
    taps.high.push_back(low + (low < r.in - 1 ? 1 : 0));
    taps.low_weight.push_back(T(1) - high_weight);
    taps.high_weight.push_back(high_weight);
  }
  return taps;
}

Tensor index_tensor(const std::vector<int64_t>& index, const Tensor& like) {
  return tensor(index, {static_cast<int64_t>(index.size())}).to(like.device());
}

// Weights [out, 1, ...] that broadcast along `dim` of `like`.
Tensor weight_tensor(const std::vector<double>& weights, const Tensor& like, int64_t dim) {
  Shape shape(like.dim() - dim, 1);
  shape[0] = static_cast<int64_t>(weights.size());
  return tensor(weights, shape).to(like.device(), like.dtype());
}

Tensor linear_along(const Tensor& x, int64_t dim, const LinearTaps& taps) {
  return index_select(x, dim, index_tensor(taps.low, x)) * weight_tensor(taps.low_weight, x, dim) +
         index_select(x, dim, index_tensor(taps.high, x)) * weight_tensor(taps.high_weight, x, dim);
}

// index_select(x, dim, index), where an index that repeats each input k times in order (an
// integer upscale) becomes an expand: one copy forward and a sum backward instead of a scatter.
Tensor select_nearest(const Tensor& x, int64_t dim, const std::vector<int64_t>& index) {
  const int64_t in = x.size(dim), out = static_cast<int64_t>(index.size()), k = out / in;
  bool repeats = out % in == 0;
  for (int64_t i = 0; repeats && i < out; ++i) repeats = index[i] == i / k;
  if (!repeats) return index_select(x, dim, index_tensor(index, x));
  Shape expanded = x.sizes(), shape = x.sizes();
  expanded.insert(expanded.begin() + dim + 1, k);
  shape[dim] = out;
  return x.unsqueeze(dim + 1).expand(expanded).reshape(shape);
}

}  // namespace

Tensor interpolate(const Tensor& input_in, const InterpolateOptions& options) {
  autograd::AutocastInputs autocast_inputs(autograd::AutocastOp::interpolate, input_in);
  const Tensor& input = autocast_inputs[0];
  const std::string& mode = options.mode();
  BRISK_CHECK(mode == "nearest" || mode == "bilinear",
              "interpolate: mode \"{}\" is not supported (supported: \"nearest\", \"bilinear\")", mode);
  if (mode == "nearest") {
    BRISK_CHECK(!options.align_corners().has_value(),
                "interpolate: align_corners can only be set with mode \"bilinear\", not \"nearest\"");
    BRISK_CHECK(input.dim() >= 3 && input.dim() <= 5,
                "interpolate: mode \"nearest\" expects a 3-D, 4-D or 5-D input [N, C, *spatial], got {}",
                input.describe());
  } else {
    BRISK_CHECK(input.dim() == 4 && input.is_floating_point(),
                "interpolate: mode \"bilinear\" expects a 4-D floating point input [N, C, H, W], got {}",
                input.describe());
  }
  const std::vector<Resize> dims = resizes(input, options);
  Tensor out = input;
  if (mode == "nearest") {
    for (size_t d = 0; d < dims.size(); ++d) {
      if (dims[d].out != dims[d].in) out = select_nearest(out, static_cast<int64_t>(d) + 2, nearest_sources(dims[d]));
    }
    return out;
  }
  const bool align_corners = options.align_corners().value_or(false);
  for (size_t d = dims.size(); d-- > 0;) {
    const LinearTaps taps = input.dtype() == kFloat64 ? linear_taps<double>(dims[d], align_corners)
                                                      : linear_taps<float>(dims[d], align_corners);
    out = linear_along(out, static_cast<int64_t>(d) + 2, taps);
  }
  return out;
}

}  // namespace brisk::nn::functional
