#include "tensor/cpu/onednn_conv.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "tensor/native/ops.h"
#include "tensor/parallel.h"

namespace brisk::cpu {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;

dnnl::engine& engine() {
  static dnnl::engine cpu(dnnl::engine::kind::cpu, 0);
  return cpu;
}

// A CPU stream runs each primitive to completion on the calling thread (and its OpenMP team);
// one per host thread keeps concurrent callers apart.
dnnl::stream& stream() {
  thread_local dnnl::stream s(engine());
  return s;
}

// The data type of a float32 or bfloat16 tensor.
memory::data_type data_type_of(const Tensor& t) {
  return t.dtype() == kBFloat16 ? memory::data_type::bf16 : memory::data_type::f32;
}

// Whether this CPU has every instruction set of `isa` (oneDNN's cpu_isa values are bit sets).
bool cpu_has(dnnl::cpu_isa isa) {
  const int have = static_cast<int>(dnnl::get_effective_cpu_isa()), wanted = static_cast<int>(isa);
  return (have & wanted) == wanted;
}

// The data type the kernels compute a convolution of `input` in. bfloat16 operands go
// through oneDNN's bfloat16 kernels only on CPUs with AMX tiles; elsewhere those are slower
// than the float32 kernels (docs/amp.md), so the operands are widened to float32 in the
// reorders into the kernels' layouts, which run anyway, and the results rounded in the
// reorders out. The float32 kernels accumulate as the bfloat16 ones do, in float32.
memory::data_type compute_type_of(const Tensor& input) {
  static const bool amx = cpu_has(dnnl::cpu_isa::avx512_core_amx);
  return input.dtype() == kBFloat16 && amx ? memory::data_type::bf16 : memory::data_type::f32;
}

// The plain layouts of a convolution's operands (NCHW, or NHWC for a channels_last tensor) and its window geometry in
// oneDNN's terms: weights [groups, OC / groups, C / groups, KH, KW] when grouped, dilation counted from 0, and the
// right/bottom padding equal to the left/top (oneDNN checks the output size with the same floor division as PyTorch, so
// no extra rows are implied).
struct Geometry {
  memory::data_type type;  // the kernels' (compute_type_of)
  memory::desc src, weights, bias, dst;
  // The layout the kernels read and write activations in: NHWC for a channels_last call, as
  // the tensors are (no reorder), else the kernel's choice.
  Tag activations;
  memory::dims strides, dilates, padding;
  dnnl::algorithm algorithm;

  // An operand in the kernels' data type.
  memory::desc desc(const memory::dims& dims, Tag tag) const { return memory::desc(dims, type, tag); }
};

// oneDNN's Winograd kernels (F(4x4, 3x3)) for a stride-1 3x3 convolution with more than
// 16 channels on either side, where they were measured faster than the direct kernels, at
// about ten times their float32 error (docs/training.md, "Throughput: the reference models
// against PyTorch").
bool winograd_pays(const Tensor& weight, const Conv2dParams& p) {
  return weight.size(2) == 3 && weight.size(3) == 3 && p.stride[0] == 1 && p.stride[1] == 1 && p.dilation[0] == 1 &&
         p.dilation[1] == 1 && p.groups == 1 && weight.size(0) > 16 && weight.size(1) > 16;
}

Geometry geometry_of(const Tensor& input, const Tensor& weight, const Tensor& out, const Conv2dParams& p) {
  const int64_t oc = weight.size(0), g = p.groups;
  const memory::data_type tensors = data_type_of(input);
  Geometry geo;
  geo.type = compute_type_of(input);
  const bool nhwc = channels_last_call(input, weight, out);
  geo.activations = nhwc ? Tag::nhwc : Tag::any;
  geo.src = memory::desc(input.sizes(), tensors, nhwc ? Tag::nhwc : Tag::nchw);
  geo.weights = g == 1 ? memory::desc(weight.sizes(), tensors, nhwc ? Tag::ohwi : Tag::oihw)
                       : memory::desc({g, oc / g, weight.size(1), weight.size(2), weight.size(3)}, tensors,
                                      nhwc ? Tag::gohwi : Tag::goihw);
  geo.bias = memory::desc({oc}, tensors, Tag::x);
  geo.dst = memory::desc(out.sizes(), tensors, nhwc ? Tag::nhwc : Tag::nchw);
  geo.strides = {p.stride[0], p.stride[1]};
  geo.dilates = {p.dilation[0] - 1, p.dilation[1] - 1};
  geo.padding = {p.padding[0], p.padding[1]};
  geo.algorithm =
      winograd_pays(weight, p) ? dnnl::algorithm::convolution_winograd : dnnl::algorithm::convolution_direct;
  return geo;
}

// What a plan is made for: the operand shapes, the window geometry, the layout and the
// thread count (oneDNN sizes its work split by it).
using Key = std::vector<int64_t>;

Key key_of(const Tensor& input, const Tensor& weight, const Tensor& out, const Conv2dParams& p, bool bias) {
  Key key(input.sizes().begin(), input.sizes().end());
  key.insert(key.end(), weight.sizes().begin(), weight.sizes().end());
  key.insert(key.end(), {p.stride[0], p.stride[1], p.padding[0], p.padding[1], p.dilation[0], p.dilation[1], p.groups,
                         bias ? 1 : 0, get_num_threads(), static_cast<int64_t>(input.dtype()),
                         channels_last_call(input, weight, out) ? 1 : 0});
  return key;
}

// How one operand moves between its plain layout and the kernel's: a cached reorder, absent
// when the kernel takes the plain layout as it is.
struct Staging {
  memory::desc plain, kernel;
  dnnl::reorder reorder;

  Staging() = default;
  // `into_kernel`: an input reordered before the kernel runs, else an output reordered after.
  Staging(const memory::desc& plain_md, const memory::desc& kernel_md, bool into_kernel)
      : plain(plain_md), kernel(kernel_md) {
    if (needed()) {
      reorder = into_kernel ? dnnl::reorder(dnnl::reorder::primitive_desc(engine(), plain, engine(), kernel))
                            : dnnl::reorder(dnnl::reorder::primitive_desc(engine(), kernel, engine(), plain));
    }
  }
  bool needed() const { return plain != kernel; }
};

// One call's memories: staging buffers and the scratchpad, taken from the CPU caching
// allocator and held until the call ends; outputs computed in a staging buffer are
// reordered into their tensors by finish().
class Call {
 public:
  // The kernel-layout memory of input `data`. An input staged before in the same layout
  // (grad_out for both backward kernels) is reordered once.
  memory input(const Staging& s, void* data) {
    memory user(s.plain, engine(), data);
    if (!s.needed()) return user;
    for (const Staged& done : inputs_) {
      if (done.data == data && done.staged.get_desc() == s.kernel) return done.staged;
    }
    memory staged = buffer(s.kernel);
    s.reorder.execute(stream(), user, staged);
    inputs_.push_back({data, staged});
    return staged;
  }

  // The kernel-layout memory output `data` is computed in.
  memory output(const Staging& s, void* data) {
    memory user(s.plain, engine(), data);
    if (!s.needed()) return user;
    memory staged = buffer(s.kernel);
    outputs_.push_back({&s, staged, user});
    return staged;
  }

  // Memory of `md` for the call's own use (the scratchpad, an unwanted gradient).
  memory buffer(const memory::desc& md) {
    if (md.get_size() == 0) return memory(md, engine(), nullptr);
    buffers_.push_back(native::empty({static_cast<int64_t>(md.get_size())}, kUInt8));
    return memory(md, engine(), buffers_.back().data_ptr<uint8_t>());
  }

  void finish() {
    for (Output& o : outputs_) o.staging->reorder.execute(stream(), o.staged, o.user);
    stream().wait();
  }

 private:
  struct Staged {
    const void* data;
    memory staged;
  };
  struct Output {
    const Staging* staging;
    memory staged, user;
  };
  std::vector<Tensor> buffers_;
  std::vector<Staged> inputs_;
  std::vector<Output> outputs_;
};

dnnl::primitive_attr user_scratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

// Layouts left to the kernel (Tag::any) for src, weights and dst; no bias is a zero descriptor.
dnnl::convolution_forward::primitive_desc forward_pd(const Geometry& geo, bool bias) {
  dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_training, geo.algorithm, geo.desc(geo.src.dims(), geo.activations),
      geo.desc(geo.weights.dims(), Tag::any), bias ? geo.desc(geo.bias.dims(), Tag::x) : memory::desc(),
      geo.desc(geo.dst.dims(), geo.activations), geo.strides, geo.dilates, geo.padding, geo.padding);
  return dnnl::convolution_forward::primitive_desc(desc, user_scratchpad(), engine());
}

struct ForwardPlan {
  explicit ForwardPlan(const Geometry& geo, bool has_bias)
      : pd(forward_pd(geo, has_bias)),
        conv(pd),
        src(geo.src, pd.src_desc(), true),
        weights(geo.weights, pd.weights_desc(), true),
        bias(has_bias ? Staging(geo.bias, pd.bias_desc(), true) : Staging()),
        dst(geo.dst, pd.dst_desc(), false) {}

  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward conv;
  Staging src, weights, bias, dst;
};

// Both backward kernels; the weights kernel always computes the bias gradient too (into a
// scratch buffer when it is not wanted, which costs one small reduction).
struct BackwardPlan {
  explicit BackwardPlan(const Geometry& geo)
      : hint(forward_pd(geo, true)),
        data_pd(dnnl::convolution_backward_data::desc(
                    geo.algorithm, geo.desc(geo.src.dims(), geo.activations), geo.desc(geo.weights.dims(), Tag::any),
                    geo.desc(geo.dst.dims(), geo.activations), geo.strides, geo.dilates, geo.padding, geo.padding),
                user_scratchpad(), engine(), hint),
        data(data_pd),
        weights_pd(dnnl::convolution_backward_weights::desc(
                       geo.algorithm, geo.desc(geo.src.dims(), geo.activations), geo.desc(geo.weights.dims(), Tag::any),
                       geo.desc(geo.bias.dims(), Tag::x), geo.desc(geo.dst.dims(), geo.activations), geo.strides,
                       geo.dilates, geo.padding, geo.padding),
                   user_scratchpad(), engine(), hint),
        weights(weights_pd),
        data_grad_out(geo.dst, data_pd.diff_dst_desc(), true),
        data_weight(geo.weights, data_pd.weights_desc(), true),
        grad_input(geo.src, data_pd.diff_src_desc(), false),
        weights_grad_out(geo.dst, weights_pd.diff_dst_desc(), true),
        weights_input(geo.src, weights_pd.src_desc(), true),
        grad_weight(geo.weights, weights_pd.diff_weights_desc(), false),
        grad_bias(geo.bias, weights_pd.diff_bias_desc(), false) {}

  dnnl::convolution_forward::primitive_desc hint;
  dnnl::convolution_backward_data::primitive_desc data_pd;
  dnnl::convolution_backward_data data;
  dnnl::convolution_backward_weights::primitive_desc weights_pd;
  dnnl::convolution_backward_weights weights;
  Staging data_grad_out, data_weight, grad_input;
  Staging weights_grad_out, weights_input, grad_weight, grad_bias;
};

// The plan for `key`, made on first use. Plans are immutable once made, and oneDNN
// primitives may run concurrently, so only the lookup is locked.
template <typename Plan, typename Make>
const Plan& cached(const Key& key, const Make& make) {
  static std::mutex mutex;
  static std::map<Key, std::unique_ptr<Plan>> plans;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<Plan>& plan = plans[key];
  if (!plan) plan = make();
  return *plan;
}

// A plan with the geometry's algorithm, or the direct one where the CPU has no Winograd
// kernel for it (oneDNN has them for AVX-512 only).
template <typename Plan, typename... Args>
std::unique_ptr<Plan> make_plan(Geometry geo, const Args&... args) {
  try {
    return std::make_unique<Plan>(geo, args...);
  } catch (const dnnl::error&) {
    if (geo.algorithm == dnnl::algorithm::convolution_direct) throw;
    geo.algorithm = dnnl::algorithm::convolution_direct;
    return std::make_unique<Plan>(geo, args...);
  }
}

}  // namespace

bool channels_last_call(const Tensor& input, const Tensor& weight, const Tensor& out) {
  return !(input.is_contiguous() && weight.is_contiguous() && out.is_contiguous());
}

bool onednn_conv2d_applies(const Tensor& input) {
  // bfloat16 only where its conversions have been seen to run (AVX-512 cores).
  static const bool bf16 = cpu_has(dnnl::cpu_isa::avx512_core);
  return (input.dtype() == kFloat32 || (input.dtype() == kBFloat16 && bf16)) && !in_parallel_region();
}

void onednn_conv2d(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                   const Conv2dParams& params) {
  const ForwardPlan& plan = cached<ForwardPlan>(key_of(input, weight, out, params, bias.defined()), [&] {
    return make_plan<ForwardPlan>(geometry_of(input, weight, out, params), bias.defined());
  });
  Call call;
  std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC, call.input(plan.src, input.raw_data())},
      {DNNL_ARG_WEIGHTS, call.input(plan.weights, weight.raw_data())},
      {DNNL_ARG_DST, call.output(plan.dst, out.raw_data())},
      {DNNL_ARG_SCRATCHPAD, call.buffer(plan.pd.scratchpad_desc())},
  };
  if (bias.defined()) args[DNNL_ARG_BIAS] = call.input(plan.bias, bias.raw_data());
  plan.conv.execute(stream(), args);
  call.finish();
}

void onednn_conv2d_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                            const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                            const Conv2dParams& params) {
  const BackwardPlan& plan = cached<BackwardPlan>(key_of(input, weight, grad_out, params, true), [&] {
    return make_plan<BackwardPlan>(geometry_of(input, weight, grad_out, params));
  });
  Call call;
  if (grad_input.defined()) {
    plan.data.execute(stream(), {
                                    {DNNL_ARG_DIFF_DST, call.input(plan.data_grad_out, grad_out.raw_data())},
                                    {DNNL_ARG_WEIGHTS, call.input(plan.data_weight, weight.raw_data())},
                                    {DNNL_ARG_DIFF_SRC, call.output(plan.grad_input, grad_input.raw_data())},
                                    {DNNL_ARG_SCRATCHPAD, call.buffer(plan.data_pd.scratchpad_desc())},
                                });
  }
  if (grad_weight.defined() || grad_bias.defined()) {
    plan.weights.execute(
        stream(),
        {
            {DNNL_ARG_DIFF_DST, call.input(plan.weights_grad_out, grad_out.raw_data())},
            {DNNL_ARG_SRC, call.input(plan.weights_input, input.raw_data())},
            {DNNL_ARG_DIFF_WEIGHTS, grad_weight.defined() ? call.output(plan.grad_weight, grad_weight.raw_data())
                                                          : call.buffer(plan.grad_weight.kernel)},
            {DNNL_ARG_DIFF_BIAS, grad_bias.defined() ? call.output(plan.grad_bias, grad_bias.raw_data())
                                                     : call.buffer(plan.grad_bias.kernel)},
            {DNNL_ARG_SCRATCHPAD, call.buffer(plan.weights_pd.scratchpad_desc())},
        });
  }
  call.finish();
}

}  // namespace brisk::cpu
