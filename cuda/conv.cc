// CudaBackend::conv2d and conv2d_backward through cuDNN's convolution API over NCHW tensors,
// all contiguous or all channels_last (NHWC, described to cuDNN by their strides and an NHWC
// filter), the backend's contract. The choices (math type, algorithm cache and fallback, workspaces, bias through the
// backend's own kernels): docs/cuda_kernels.md, "Convolution through cuDNN". Every cuDNN error
// is rethrown naming the op, the shapes and the geometry.
#include <climits>
#include <optional>
#include <string>
#include <vector>

#include "cuda/blas.h"
#include "cuda/conv_algorithm_cache.h"
#include "cuda/conv_fallback.h"
#include "cuda/cuda_backend.h"
#include "cuda/cudnn_handle.h"
#include "cuda/error.h"
#include "cuda/launch.h"
#include "tensor/native/ops.h"

namespace brisk::cuda {
namespace {

// cuda/conv_algorithm_cache.cc names the math types and algorithms by these values of cuDNN's
// enums (it is free of cuDNN's headers).
static_assert(CUDNN_DEFAULT_MATH == 0 && CUDNN_TENSOR_OP_MATH == 1 && CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION == 2 &&
                  CUDNN_FMA_MATH == 3,
              "cudnnMathType_t values changed: update conv_math_name");
static_assert(CUDNN_CONVOLUTION_FWD_ALGO_COUNT == 8 && CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT == 6 &&
                  CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT == 7,
              "cuDNN's convolution algorithms changed: update conv_algorithm_name");

int checked_int(int64_t v, const char* op, const Tensor& t) {
  BRISK_CHECK(v <= INT_MAX, "{}: cuDNN takes sizes and strides up to 2^31 - 1, got {}", op, t.describe());
  return static_cast<int>(v);
}

cudnnDataType_t data_type(DType dtype) {
  switch (dtype) {
    case DType::Float32: return CUDNN_DATA_FLOAT;
    case DType::Float64: return CUDNN_DATA_DOUBLE;
    // Tensor-core kernels, accumulating in float32 (the convolution's compute type).
    case DType::Float16: return CUDNN_DATA_HALF;
    case DType::BFloat16: return CUDNN_DATA_BFLOAT16;
    default:
      BRISK_FAIL("conv2d: not implemented for dtype {} on CUDA (supported: float32, float64, float16, bfloat16)",
                 dtype);
  }
}

// 16-bit data is convolved with float32 accumulation (cuDNN's PSEUDO_HALF/PSEUDO_BFLOAT16
// configurations), as PyTorch does.
cudnnDataType_t compute_type(cudnnDataType_t data) {
  return data == CUDNN_DATA_HALF || data == CUDNN_DATA_BFLOAT16 ? CUDNN_DATA_FLOAT : data;
}

// Owns a cuDNN descriptor: the derived class's constructor creates and sets it, the
// destructor destroys it.
template <typename Handle, cudnnStatus_t (*kDestroy)(Handle)>
class Descriptor {
 public:
  Descriptor() = default;
  ~Descriptor() {
    if (desc_ != nullptr) kDestroy(desc_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  Handle get() const { return desc_; }

 protected:
  Handle desc_ = nullptr;
};

class TensorDescriptor : public Descriptor<cudnnTensorDescriptor_t, cudnnDestroyTensorDescriptor> {
 public:
  TensorDescriptor(const char* op, const Tensor& t, cudnnDataType_t type) {
    BRISK_CUDNN_CHECK(cudnnCreateTensorDescriptor(&desc_));
    int sizes[4], strides[4];
    for (int d = 0; d < 4; ++d) {
      sizes[d] = checked_int(t.size(d), op, t);
      strides[d] = checked_int(t.stride(d), op, t);
    }
    BRISK_CUDNN_CHECK(cudnnSetTensorNdDescriptor(desc_, type, 4, sizes, strides));
  }
};

// A channels_last call (tensor/backend.h): its operands are not all contiguous NCHW, so the
// native op made them all channels_last. cuDNN then reads the filter as NHWC (KRSC).
bool channels_last_call(const Tensor& x, const Tensor& w, const Tensor& y) {
  return !(x.is_contiguous() && w.is_contiguous() && y.is_contiguous());
}

class FilterDescriptor : public Descriptor<cudnnFilterDescriptor_t, cudnnDestroyFilterDescriptor> {
 public:
  FilterDescriptor(const char* op, const Tensor& w, cudnnDataType_t type, bool nhwc) {
    BRISK_CUDNN_CHECK(cudnnCreateFilterDescriptor(&desc_));
    BRISK_CUDNN_CHECK(cudnnSetFilter4dDescriptor(desc_, type, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                                 checked_int(w.size(0), op, w), checked_int(w.size(1), op, w),
                                                 checked_int(w.size(2), op, w), checked_int(w.size(3), op, w)));
  }
};

class ConvolutionDescriptor : public Descriptor<cudnnConvolutionDescriptor_t, cudnnDestroyConvolutionDescriptor> {
 public:
  ConvolutionDescriptor(const Conv2dParams& p, cudnnDataType_t type) {
    auto i = [](int64_t v) { return static_cast<int>(v); };  // checked by the native op's output size
    BRISK_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&desc_));
    BRISK_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(desc_, i(p.padding[0]), i(p.padding[1]), i(p.stride[0]),
                                                      i(p.stride[1]), i(p.dilation[0]), i(p.dilation[1]),
                                                      CUDNN_CROSS_CORRELATION, compute_type(type)));
    BRISK_CUDNN_CHECK(cudnnSetConvolutionGroupCount(desc_, i(p.groups)));
  }
  void set_math(cudnnMathType_t math) const { BRISK_CUDNN_CHECK(cudnnSetConvolutionMathType(desc_, math)); }
};

// The math type a problem's descriptor starts with, as PyTorch sets it: tensor-op math for
// 16-bit data (tensor cores; without it cuDNN ranks FP32 FFMA kernels plus conversions first),
// cuDNN's default for float32 with TF32 allowed, FMA math (no TF32) otherwise. The algorithm
// search then runs each algorithm under the math type it reports (math_for).
cudnnMathType_t initial_math(cudnnDataType_t type, bool tf32) {
  if (type == CUDNN_DATA_HALF || type == CUDNN_DATA_BFLOAT16) return CUDNN_TENSOR_OP_MATH;
  if (type == CUDNN_DATA_FLOAT) return tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
  return CUDNN_DEFAULT_MATH;
}

// One convolution problem described to cuDNN: x [N, C, H, W], w, y [N, OC, OH, OW] (in the
// backward passes, the gradients of x, w and y take their places).
struct Problem {
  Problem(const char* op, const Tensor& x, const Tensor& w, const Tensor& y, const Conv2dParams& params)
      : scope(x.device()),
        handle(cudnn_handle(scope.device(), scope.stream())),
        type(data_type(x.dtype())),
        tf32(x.dtype() == kFloat32 && allow_tf32()),
        x_desc(op, x, type),
        y_desc(op, y, type),
        w_desc(op, w, type, channels_last_call(x, w, y)),
        conv(params, type) {
    conv.set_math(initial_math(type, tf32));
  }

  // Pointers to 1 and 0 of the type cuDNN scales with (double for double data, else float).
  const void* one() const { return type == CUDNN_DATA_DOUBLE ? static_cast<const void*>(&one64) : &one32; }
  const void* zero() const { return type == CUDNN_DATA_DOUBLE ? static_cast<const void*>(&zero64) : &zero32; }

  LaunchScope scope;
  cudnnHandle_t handle;
  cudnnDataType_t type;
  bool tf32;
  TensorDescriptor x_desc, y_desc;
  FilterDescriptor w_desc;
  ConvolutionDescriptor conv;
  static constexpr float one32 = 1.0f, zero32 = 0.0f;
  static constexpr double one64 = 1.0, zero64 = 0.0;
};

// The math type an algorithm of cuDNN's ranking runs under, or nothing if it needs TF32 that
// is not allowed. Float32 without TF32 runs FMA math whatever cuDNN reports, since
// CUDNN_DEFAULT_MATH permits TF32 on Ampere and later.
std::optional<cudnnMathType_t> math_for(const Problem& p, cudnnMathType_t reported) {
  if (p.type != CUDNN_DATA_FLOAT || p.tf32) return reported;
  if (reported == CUDNN_TENSOR_OP_MATH || reported == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) return std::nullopt;
  return CUDNN_FMA_MATH;
}

// cuDNN's ranking of one pass (get: its cudnnGet*Algorithm_v7, `name` that call's name) minus
// failures and disallowed math, each with its workspace size under its math type
// (workspace_size: the pass's cudnnGet*WorkspaceSize). a, b and c are the pass's descriptors in
// the order both calls take them, the convolution's between b and c.
template <typename Perf, typename A, typename B, typename C, typename Algo>
std::vector<ConvAlgorithm> ranked(const Problem& p, int max_count, const char* name,
                                  cudnnStatus_t (*get)(cudnnHandle_t, A, B, cudnnConvolutionDescriptor_t, C, int, int*,
                                                       Perf*),
                                  cudnnStatus_t (*workspace_size)(cudnnHandle_t, A, B, cudnnConvolutionDescriptor_t, C,
                                                                  Algo, size_t*),
                                  A a, B b, C c) {
  std::vector<Perf> perf(static_cast<size_t>(max_count));
  int count = 0;
  cudnnStatus_t status = get(p.handle, a, b, p.conv.get(), c, max_count, &count, perf.data());
  if (status != CUDNN_STATUS_SUCCESS) throw_cudnn_error(status, name, __FILE__, __LINE__);
  std::vector<ConvAlgorithm> out;
  for (int i = 0; i < count; ++i) {
    std::optional<cudnnMathType_t> math = math_for(p, perf[i].mathType);
    if (perf[i].status != CUDNN_STATUS_SUCCESS || !math) continue;
    p.conv.set_math(*math);
    size_t bytes = 0;
    if (workspace_size(p.handle, a, b, p.conv.get(), c, perf[i].algo, &bytes) != CUDNN_STATUS_SUCCESS) continue;
    out.push_back({static_cast<int>(perf[i].algo), static_cast<int>(*math), bytes});
  }
  return out;
}

std::vector<ConvAlgorithm> search(ConvPass pass, const Problem& p) {
  switch (pass) {
    case ConvPass::Forward:
      return ranked(p, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, "cudnnGetConvolutionForwardAlgorithm_v7",
                    cudnnGetConvolutionForwardAlgorithm_v7, cudnnGetConvolutionForwardWorkspaceSize, p.x_desc.get(),
                    p.w_desc.get(), p.y_desc.get());
    case ConvPass::BackwardData:
      return ranked(p, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, "cudnnGetConvolutionBackwardDataAlgorithm_v7",
                    cudnnGetConvolutionBackwardDataAlgorithm_v7, cudnnGetConvolutionBackwardDataWorkspaceSize,
                    p.w_desc.get(), p.y_desc.get(), p.x_desc.get());
    case ConvPass::BackwardFilter:
      return ranked(p, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, "cudnnGetConvolutionBackwardFilterAlgorithm_v7",
                    cudnnGetConvolutionBackwardFilterAlgorithm_v7, cudnnGetConvolutionBackwardFilterWorkspaceSize,
                    p.x_desc.get(), p.y_desc.get(), p.w_desc.get());
  }
  BRISK_FAIL("conv2d: unknown convolution pass {}", static_cast<int>(pass));
}

// How one algorithm's cuDNN call ended: its status, cuDNN's detail, and the CUDA error it
// left pending (taken, so the next launch check does not raise it against another kernel).
ConvAttempt attempt_result(cudnnStatus_t status) {
  if (status == CUDNN_STATUS_SUCCESS) return ConvAttempt::ran();
  char detail[512] = "";
  cudnnGetLastErrorString(detail, sizeof(detail));
  std::string why =
      fmt::format("{}{}{}{}", cudnnGetErrorString(status), detail[0] ? ": " : "", detail, take_pending_cuda_error());
  // cuDNN's own allocations failing is a lack of memory, not of support: keep it cached.
  if (status == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED ||
      status == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED) {
    return ConvAttempt::out_of_memory(why);
  }
  return ConvAttempt::failed(why);
}

// Runs `pass` with the first of the problem's algorithms that works (cuda/conv_fallback.h):
// call(algo, workspace, bytes) makes the cuDNN call and returns its status.
template <typename Call>
void run_pass(ConvPass pass, const Problem& p, const Tensor& x, const Tensor& w, const Tensor& y,
              const Conv2dParams& params, const Call& call) {
  run_with_fallback(
      conv_problem(pass, x, w, y, params, p.tf32), [&] { return search(pass, p); },
      [&](const ConvAlgorithm& a) {
        Tensor workspace;
        if (a.workspace > 0) {
          try {
            workspace = native::empty({static_cast<int64_t>(a.workspace)}, TensorOptions(kUInt8).device(x.device()));
          } catch (const Error& e) {
            return ConvAttempt::out_of_memory(e.what());  // a later algorithm may need less
          }
        }
        p.conv.set_math(static_cast<cudnnMathType_t>(a.math));
        return attempt_result(call(a.algo, workspace.defined() ? workspace.raw_data() : nullptr, a.workspace));
      });
}

// Runs f(), rethrowing any error with the op and the convolution's geometry.
template <typename F>
void with_context(const char* op, const Tensor& input, const Tensor& weight, const Conv2dParams& p, const F& f) {
  try {
    f();
  } catch (const Error& e) {
    BRISK_FAIL("{}: {}\n  (input {}, weight {}, stride {}, padding {}, dilation {}, groups {})", op, e.what(),
               input.describe(), weight.describe(), p.stride, p.padding, p.dilation, p.groups);
  }
}

// The backend's contract: each defined operand dense, contiguous or channels_last.
void check_conv_layout(const char* op, std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts) {
    BRISK_CHECK(!t->defined() || t->is_contiguous() || t->is_contiguous(MemoryFormat::ChannelsLast),
                "{}: the CUDA kernels take contiguous or channels_last tensors, got {} with strides {}", op,
                t->describe(), t->strides());
  }
}

// bias [OC] as [1, OC, 1, 1], broadcast over the other dims.
Tensor channel_view(const Tensor& bias) { return native::view(bias, {1, bias.size(0), 1, 1}); }

}  // namespace

void CudaBackend::conv2d(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                         const Conv2dParams& params) {
  check_conv_layout("conv2d", {&out, &input, &weight});
  check_contiguous("conv2d", {&bias});
  with_context("conv2d", input, weight, params, [&] {
    Tensor y = out;
    if (input.numel() == 0 || weight.numel() == 0) {  // no input channels: the bias alone
      native::fill_(y, 0);
      if (bias.defined()) native::copy_(y, native::expand(channel_view(bias), out.sizes()));
      return;
    }
    Problem p("conv2d", input, weight, out, params);
    run_pass(ConvPass::Forward, p, input, weight, out, params, [&](int algo, void* workspace, size_t bytes) {
      return cudnnConvolutionForward(p.handle, p.one(), p.x_desc.get(), input.raw_data(), p.w_desc.get(),
                                     weight.raw_data(), p.conv.get(), static_cast<cudnnConvolutionFwdAlgo_t>(algo),
                                     workspace, bytes, p.zero(), p.y_desc.get(), out.raw_data());
    });
    // Add's alpha (the factor of the second operand) is params.a.
    if (bias.defined()) native::binary_(BinaryOp::Add, y, channel_view(bias), OpParams{1.0});
  });
}

void CudaBackend::conv2d_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                                  const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                                  const Conv2dParams& params) {
  check_conv_layout("conv2d_backward", {&grad_input, &grad_weight, &grad_out, &input, &weight});
  check_contiguous("conv2d_backward", {&grad_bias});
  with_context("conv2d_backward", input, weight, params, [&] {
    if (grad_bias.defined()) {
      Tensor gb = channel_view(grad_bias);
      if (grad_out.numel() == 0) {
        native::fill_(gb, 0);
      } else {
        reduce(ReduceOp::Sum, gb, Tensor(), grad_out, {0, 2, 3}, {});
      }
    }
    if (!grad_input.defined() && !grad_weight.defined()) return;
    if (grad_out.numel() == 0 || input.numel() == 0 || weight.numel() == 0) {  // nothing flows
      for (Tensor g : {grad_input, grad_weight}) {
        if (g.defined()) native::fill_(g, 0);
      }
      return;
    }
    Problem p("conv2d_backward", input, weight, grad_out, params);
    if (grad_input.defined()) {
      run_pass(ConvPass::BackwardData, p, input, weight, grad_out, params,
               [&](int algo, void* workspace, size_t bytes) {
                 return cudnnConvolutionBackwardData(p.handle, p.one(), p.w_desc.get(), weight.raw_data(),
                                                     p.y_desc.get(), grad_out.raw_data(), p.conv.get(),
                                                     static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), workspace, bytes,
                                                     p.zero(), p.x_desc.get(), grad_input.raw_data());
               });
    }
    if (grad_weight.defined()) {
      run_pass(ConvPass::BackwardFilter, p, input, weight, grad_out, params,
               [&](int algo, void* workspace, size_t bytes) {
                 return cudnnConvolutionBackwardFilter(p.handle, p.one(), p.x_desc.get(), input.raw_data(),
                                                       p.y_desc.get(), grad_out.raw_data(), p.conv.get(),
                                                       static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), workspace,
                                                       bytes, p.zero(), p.w_desc.get(), grad_weight.raw_data());
               });
    }
  });
}

}  // namespace brisk::cuda
