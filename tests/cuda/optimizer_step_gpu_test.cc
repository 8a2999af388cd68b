// The fused optimizer updates (native::sgd_step_, native::adam_step_) on CUDA against the CPU
// backend's, in float32 and float64, for each option that changes the update, on contiguous
// and transposed (strided) operands; and their multi-tensor forms (cuda/multi_tensor_apply.cu.h)
// against the per-tensor kernels bit for bit, over lists that take several launches.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/cuda/backend_test_util.h"

namespace brisk::testing {
namespace {

Tolerance step_tolerance(DType dtype) { return dtype == kFloat64 ? Tolerance{1e-12, 1e-14} : Tolerance{1e-5, 1e-6}; }

// A [6, 5] operand on the CPU and the same values on the GPU; transposed: viewed from a
// [5, 6] tensor, so strided.
struct Operand {
  Tensor cpu, gpu;
};

Operand operand(DType dtype, uint64_t seed, bool transposed, double lo = -2.0, double hi = 2.0) {
  Tensor base = random_cpu(transposed ? Shape{5, 6} : Shape{6, 5}, dtype, seed, lo, hi);
  Tensor gpu = on_gpu(base);
  if (!transposed) return {base, gpu};
  return {native::transpose(base, 0, 1), native::transpose(gpu, 0, 1)};
}

struct SgdCase {
  const char* name;
  SgdStepParams params;
};

SgdStepParams sgd(double momentum, double dampening, double weight_decay, bool nesterov, bool maximize,
                  bool first_step) {
  SgdStepParams p;
  p.lr = 0.05;
  p.momentum = momentum;
  p.dampening = dampening;
  p.weight_decay = weight_decay;
  p.nesterov = nesterov;
  p.maximize = maximize;
  p.first_step = first_step;
  return p;
}

TEST_CASE("sgd_step_ on CUDA matches the CPU", "[gpu]") {
  const SgdCase cases[] = {
      {"plain", sgd(0, 0, 0, false, false, false)},
      {"weight decay", sgd(0, 0, 0.01, false, false, false)},
      {"maximize", sgd(0, 0, 0.01, false, true, false)},
      {"momentum, first step", sgd(0.9, 0, 0, false, false, true)},
      {"momentum and dampening", sgd(0.9, 0.1, 0, false, false, false)},
      {"nesterov with weight decay", sgd(0.9, 0, 0.01, true, false, false)},
      {"nesterov, first step, maximize", sgd(0.8, 0, 0.02, true, true, true)},
  };
  for (const SgdCase& c : cases) {
    for (DType dtype : {kFloat32, kFloat64}) {
      for (bool transposed : {false, true}) {
        INFO("sgd_step_ " << c.name << " in " << dtype_name(dtype) << (transposed ? ", transposed" : ", contiguous"));
        Operand param = operand(dtype, 1, transposed), grad = operand(dtype, 2, transposed);
        Operand buf = c.params.momentum != 0 ? operand(dtype, 3, transposed) : Operand();
        native::sgd_step_(param.cpu, grad.cpu, buf.cpu, c.params);
        native::sgd_step_(param.gpu, grad.gpu, buf.gpu, c.params);
        require_matches(param.gpu, param.cpu, step_tolerance(dtype));
        if (buf.cpu.defined()) require_matches(buf.gpu, buf.cpu, step_tolerance(dtype));
      }
    }
  }
}

struct AdamCase {
  const char* name;
  AdamStepParams params;
};

// The options of step `t`, with the bias corrections computed as optim::Adam does.
AdamStepParams adam(double weight_decay, bool decoupled, bool amsgrad, bool maximize, int t) {
  AdamStepParams p;
  p.lr = 0.01;
  p.beta1 = 0.9;
  p.beta2 = 0.99;
  p.eps = 1e-6;
  p.weight_decay = weight_decay;
  p.decoupled_weight_decay = decoupled;
  p.amsgrad = amsgrad;
  p.maximize = maximize;
  p.step_size = p.lr / (1 - std::pow(p.beta1, t));
  p.bias_correction2_sqrt = std::sqrt(1 - std::pow(p.beta2, t));
  return p;
}

TEST_CASE("adam_step_ on CUDA matches the CPU", "[gpu]") {
  const AdamCase cases[] = {
      {"plain, first step", adam(0, false, false, false, 1)},
      {"step 5", adam(0, false, false, false, 5)},
      {"L2 weight decay", adam(0.01, false, false, false, 3)},
      {"decoupled weight decay (AdamW)", adam(0.01, true, false, false, 3)},
      {"amsgrad", adam(0, false, true, false, 4)},
      {"amsgrad, AdamW, maximize", adam(0.05, true, true, true, 2)},
  };
  for (const AdamCase& c : cases) {
    for (DType dtype : {kFloat32, kFloat64}) {
      for (bool transposed : {false, true}) {
        INFO("adam_step_ " << c.name << " in " << dtype_name(dtype) << (transposed ? ", transposed" : ", contiguous"));
        Operand param = operand(dtype, 1, transposed), grad = operand(dtype, 2, transposed);
        Operand m = operand(dtype, 3, transposed, -0.5, 0.5), v = operand(dtype, 4, transposed, 0.0, 0.5);
        Operand v_max = c.params.amsgrad ? operand(dtype, 5, transposed, 0.0, 0.5) : Operand();
        native::adam_step_(param.cpu, grad.cpu, m.cpu, v.cpu, v_max.cpu, c.params);
        native::adam_step_(param.gpu, grad.gpu, m.gpu, v.gpu, v_max.gpu, c.params);
        require_matches(param.gpu, param.cpu, step_tolerance(dtype));
        require_matches(m.gpu, m.cpu, step_tolerance(dtype));
        require_matches(v.gpu, v.cpu, step_tolerance(dtype));
        if (v_max.cpu.defined()) require_matches(v_max.gpu, v_max.cpu, step_tolerance(dtype));
      }
    }
  }
}

// Lists that exercise multi_tensor_apply's launches: many small tensors (more than one launch
// holds), an empty one, and two of many chunks whose chunks overflow one launch's table, so the
// second is carried over into the next launch.
std::vector<Shape> multi_tensor_shapes() {
  std::vector<Shape> shapes;
  for (int64_t i = 0; i < 130; ++i) shapes.push_back({1 + (i * 37) % 3001});
  shapes.push_back({0});
  shapes.push_back({200 * 65536 + 5});
  shapes.push_back({150 * 65536 + 3});
  shapes.push_back({7, 9});
  return shapes;
}

// The same random list on the GPU twice: one for the multi-tensor kernel, one for the
// per-tensor kernels.
struct GpuList {
  std::vector<Tensor> multi, per_tensor;
};

GpuList gpu_list(const std::vector<Shape>& shapes, DType dtype, uint64_t seed, double lo = -2.0, double hi = 2.0) {
  GpuList list;
  for (size_t i = 0; i < shapes.size(); ++i) {
    Tensor cpu = random_cpu(shapes[i], dtype, seed * 1000 + i, lo, hi);
    list.multi.push_back(on_gpu(cpu));
    list.per_tensor.push_back(on_gpu(cpu));
  }
  return list;
}

void require_same_bits(const std::vector<Tensor>& multi, const std::vector<Tensor>& per_tensor) {
  for (size_t i = 0; i < multi.size(); ++i) {
    INFO("tensor " << i << " " << multi[i].describe());
    REQUIRE(native::equal(on_cpu(multi[i]), on_cpu(per_tensor[i])));
  }
}

TEST_CASE("multi_tensor_sgd_step_ on CUDA equals the per-tensor kernels bit for bit", "[gpu]") {
  const std::vector<Shape> shapes = multi_tensor_shapes();
  for (DType dtype : {kFloat32, kFloat64}) {
    for (const SgdStepParams& o : {sgd(0, 0, 0.01, false, true, false), sgd(0.9, 0.1, 0.01, false, false, false),
                                   sgd(0.8, 0, 0.02, true, false, true)}) {
      INFO(dtype_name(dtype) << " momentum " << o.momentum);
      GpuList param = gpu_list(shapes, dtype, 1), grad = gpu_list(shapes, dtype, 2);
      GpuList buf = o.momentum != 0 ? gpu_list(shapes, dtype, 3) : GpuList();
      native::multi_tensor_sgd_step_(param.multi, grad.multi, buf.multi, o);
      for (size_t i = 0; i < shapes.size(); ++i) {
        native::sgd_step_(param.per_tensor[i], grad.per_tensor[i],
                          buf.per_tensor.empty() ? Tensor() : buf.per_tensor[i], o);
      }
      require_same_bits(param.multi, param.per_tensor);
      require_same_bits(buf.multi, buf.per_tensor);
    }
  }
}

TEST_CASE("multi_tensor_adam_step_ on CUDA equals the per-tensor kernels bit for bit", "[gpu]") {
  const std::vector<Shape> shapes = multi_tensor_shapes();
  for (DType dtype : {kFloat32, kFloat64}) {
    for (const AdamStepParams& o : {adam(0.01, false, false, false, 3), adam(0.05, true, true, true, 2)}) {
      INFO(dtype_name(dtype) << (o.amsgrad ? " amsgrad" : ""));
      GpuList param = gpu_list(shapes, dtype, 1), grad = gpu_list(shapes, dtype, 2);
      GpuList m = gpu_list(shapes, dtype, 3, -0.5, 0.5), v = gpu_list(shapes, dtype, 4, 0.0, 0.5);
      GpuList v_max = o.amsgrad ? gpu_list(shapes, dtype, 5, 0.0, 0.5) : GpuList();
      native::multi_tensor_adam_step_(param.multi, grad.multi, m.multi, v.multi, v_max.multi, o);
      for (size_t i = 0; i < shapes.size(); ++i) {
        native::adam_step_(param.per_tensor[i], grad.per_tensor[i], m.per_tensor[i], v.per_tensor[i],
                           v_max.per_tensor.empty() ? Tensor() : v_max.per_tensor[i], o);
      }
      for (GpuList* list : {&param, &m, &v, &v_max}) require_same_bits(list->multi, list->per_tensor);
    }
  }
}

TEST_CASE("multi_tensor_non_finite_check_and_unscale_ on CUDA finds an inf in a carried-over tensor", "[gpu]") {
  const std::vector<Shape> shapes = multi_tensor_shapes();
  for (bool with_inf : {false, true}) {
    GpuList grad = gpu_list(shapes, kFloat32, 6);
    if (with_inf) {
      // The last element of the tensor whose chunks span two launches.
      const size_t carried = shapes.size() - 2;
      for (std::vector<Tensor>* list : {&grad.multi, &grad.per_tensor}) {
        Tensor last = native::select((*list)[carried], 0, shapes[carried][0] - 1);
        native::fill_(last, Scalar(std::numeric_limits<double>::infinity()));
      }
    }
    Tensor found = on_gpu(native::zeros({1}, TensorOptions(kFloat32)));
    Tensor found_per_tensor = on_gpu(native::zeros({1}, TensorOptions(kFloat32)));
    native::multi_tensor_non_finite_check_and_unscale_(grad.multi, found, 0.125f);
    for (const Tensor& g : grad.per_tensor) native::non_finite_check_and_unscale_(g, found_per_tensor, 0.125f);
    require_same_bits(grad.multi, grad.per_tensor);
    CHECK(on_cpu(found).to_vector<float>() == std::vector<float>{with_inf ? 1.0f : 0.0f});
    CHECK(on_cpu(found_per_tensor).to_vector<float>() == std::vector<float>{with_inf ? 1.0f : 0.0f});
  }
}

}  // namespace
}  // namespace brisk::testing
