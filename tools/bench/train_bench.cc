// Training throughput of a reference model in images per second: lenet (models::LeNet5, on
// 1x28x28 images), resnet20 (models::resnet20) or airbench (models::AirbenchNet), both on
// 3x32x32 images. One training step is forward, cross_entropy, backward, SGD (lr 0.01,
// momentum 0.9) step and zero_grad, on a fixed batch of random images and random labels, the
// model in training mode; with --amp bf16|fp16, forward and loss under brisk::autocast, and
// for fp16 an optim::GradScaler around backward and step, as a float16 training loop runs;
// with --channels-last, the model's 4-D parameters and the images are channels_last, so the
// whole step runs NHWC (docs/tensors.md, "Memory formats").
// After warm-up steps, each of `repeats` samples times `steps` steps; prints, per batch size,
//
//   <model>_b<batch>[_bf16|_fp16][_cl] <median images/s> <min images/s> <max images/s> [<kernels/step> <busy>]
//
// On CUDA the last two come from --activity-steps more steps (4 by default) recorded through
// CUPTI (cuda/activity_recorder.h), untimed since recording slows launches: the GPU's kernels
// per step, and the share of those steps' time the GPU was busy (cuda/gpu_activity.h). On the
// simulated device, kernels per step are those of one more step as the device counts them
// (tensor/sim/sim_graph.h: one per backend kernel call), and the busy share is "-": the
// launches a GPU step would make, measurable without a GPU.
//
// for tools/bench/run_train_bench.sh, which runs the PyTorch twin (train_bench_torch.py)
// with the same arguments, interleaved, and compares.
//
// --cuda-graph captures one step as a graph of device work after the warm-up (PyTorch's
// whole-network recipe, tensor/graphs/graph.h: the gradients set to none before the capture,
// the fixed batch as the static input) and times its replays; lines get the suffix _graph. It
// refuses --amp fp16, whose GradScaler reads the host every step. CUDA or sim:N.
//
// --profile-steps N (CUDA only) runs N more steps after the warm-up inside a profiler capture
// range (cuda/profiler_capture.h), untimed: under `ncu --profile-from-start off` only their
// kernels are profiled (tools/gpu/run_bundle.sh's profile phase: one step of each model).
//
//   train_bench --model resnet20 --threads 2 [--device cpu|cuda|sim] [--batches 64,128]
//               [--warmup 5] [--repeats 15] [--steps 4] [--amp off|bf16|fp16] [--channels-last]
//               [--profile-steps 1] [--activity-steps 4] [--cuda-graph]
//
// On CUDA, after the timing it prints the cuDNN algorithm chosen for each convolution problem
// ("conv <pass of shapes, dtypes, layouts>: <algorithm>, <math type>, workspace <bytes>").
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "autograd/autocast.h"
#include "autograd/ops.h"
#include "cuda/activity_recorder.h"
#include "cuda/conv_algorithm_cache.h"
#include "cuda/device.h"
#include "cuda/profiler_capture.h"
#include "models/airbench_net.h"
#include "models/cifar_resnet.h"
#include "models/lenet.h"
#include "nn/functional.h"
#include "optim/grad_scaler.h"
#include "optim/sgd.h"
#include "tensor/graphs/graph.h"
#include "tensor/parallel.h"
#include "tensor/sim/sim_graph.h"

namespace {

using brisk::Tensor;

struct Args {
  std::string model = "lenet";
  int threads = brisk::get_num_threads();
  std::string device = "cpu";
  std::vector<int64_t> batches{64, 256};
  int warmup = 5, repeats = 15, steps = 4, profile_steps = 0, activity_steps = 4;
  std::string amp = "off";
  bool channels_last = false;
  bool cuda_graph = false;
};

// The model and the shape of one input image.
struct Model {
  std::shared_ptr<brisk::nn::Module> module;
  brisk::Shape image;
};

Model make_model(const std::string& name) {
  if (name == "lenet") return {brisk::models::LeNet5().ptr(), {1, 28, 28}};
  if (name == "resnet20") return {brisk::models::resnet20().ptr(), {3, 32, 32}};
  return {brisk::models::AirbenchNet().ptr(), {3, 32, 32}};  // airbench, the last --model allows
}

}  // namespace

// An error (no usable GPU, say) is printed as one line and exits 1, not an abort.
int main(int argc, char** argv) try {
  Args args;
  CLI::App app{"Training throughput of a reference model in images/s (see tools/bench/run_train_bench.sh)"};
  app.add_option("--model", args.model)->check(CLI::IsMember({"lenet", "resnet20", "airbench"}));
  app.add_option("--threads", args.threads, "CPU threads");
  app.add_option("--device", args.device, "cpu or cuda[:N]");
  app.add_option("--batches", args.batches, "batch sizes, comma-separated")->delimiter(',');
  app.add_option("--warmup", args.warmup, "untimed steps before the timing");
  app.add_option("--repeats", args.repeats, "timed samples per batch size");
  app.add_option("--steps", args.steps, "steps per sample");
  app.add_option("--amp", args.amp, "autocast precision")->check(CLI::IsMember({"off", "bf16", "fp16"}));
  app.add_flag("--channels-last", args.channels_last, "channels_last parameters and images (NHWC end to end)");
  app.add_option("--profile-steps", args.profile_steps, "untimed steps in a profiler capture range (CUDA only)");
  app.add_option("--activity-steps", args.activity_steps,
                 "untimed steps whose kernels and GPU-busy share are recorded (CUDA only; 0: none)");
  app.add_flag("--cuda-graph", args.cuda_graph, "time replays of one step captured as a graph (CUDA or sim)");
  CLI11_PARSE(app, argc, argv);
  brisk::set_num_threads(args.threads);
  brisk::manual_seed(0);
  brisk::Device device(args.device);
  if (device.is_cuda()) brisk::cuda::check_device(device.index);
  if (args.profile_steps > 0 && !device.is_cuda()) {
    std::fprintf(stderr, "train_bench: --profile-steps %d needs a CUDA device, not %s\n", args.profile_steps,
                 args.device.c_str());
    std::exit(2);
  }
  if (args.cuda_graph && (device.is_cpu() || args.amp == "fp16")) {
    std::fprintf(stderr, "train_bench: --cuda-graph needs a CUDA or simulated device and no --amp fp16 (got %s, %s)\n",
                 args.device.c_str(), args.amp.c_str());
    std::exit(2);
  }
  auto sync = [&] {
    if (device.is_cuda()) brisk::cuda::synchronize(device.index);
  };

  Model model = make_model(args.model);
  model.module->to(device);
  if (args.channels_last) model.module->to(brisk::MemoryFormat::ChannelsLast);
  brisk::optim::SGD opt(model.module->parameters(), brisk::optim::SGDOptions(0.01).momentum(0.9));
  brisk::optim::GradScaler scaler(brisk::optim::GradScalerOptions().enabled(args.amp == "fp16"));
  const std::string suffix = (args.amp == "off" ? "" : "_" + args.amp) + (args.channels_last ? "_cl" : "") +
                             (args.cuda_graph ? "_graph" : "");
  std::printf("threads %d\n", brisk::get_num_threads());
  for (int64_t batch : args.batches) {
    brisk::Shape shape{batch};
    shape.insert(shape.end(), model.image.begin(), model.image.end());
    Tensor images = brisk::randn(shape).to(device);
    if (args.channels_last) images = images.contiguous(brisk::MemoryFormat::ChannelsLast);
    Tensor labels = (brisk::rand({batch}) * 10).to(device, brisk::kInt64);
    auto step = [&] {
      Tensor loss;
      {
        brisk::autocast mixed_precision(device, args.amp == "fp16" ? brisk::kFloat16 : brisk::kBFloat16,
                                        args.amp != "off");
        loss = brisk::nn::functional::cross_entropy(model.module->forward(images), labels);
      }
      scaler.scale(loss).backward();
      scaler.step(opt);
      scaler.update();
      opt.zero_grad();
    };

    for (int i = 0; i < args.warmup; ++i) step();
    sync();
    // With --cuda-graph, a timed step is a replay of one captured step (its zero_grad, at the
    // end, leaves the gradients unset, as at the capture's start).
    std::optional<brisk::graphs::Graph> graph;
    if (args.cuda_graph) {
      graph.emplace(device);
      {
        brisk::graphs::GraphCapture capture(*graph);
        step();
      }
      sync();
    }
    auto timed_step = [&] { graph ? graph->replay() : step(); };
    if (args.profile_steps > 0) {
      brisk::cuda::profiler_start();
      for (int i = 0; i < args.profile_steps; ++i) timed_step();
      sync();
      brisk::cuda::profiler_stop();
    }
    std::vector<double> rates;
    for (int r = 0; r < args.repeats; ++r) {
      auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < args.steps; ++i) timed_step();
      sync();
      double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      rates.push_back(static_cast<double>(batch * args.steps) / seconds);
    }
    std::sort(rates.begin(), rates.end());
    std::printf("%s_b%lld%s %.1f %.1f %.1f", args.model.c_str(), static_cast<long long>(batch), suffix.c_str(),
                rates[rates.size() / 2], rates.front(), rates.back());
    if (device.is_cuda() && args.activity_steps > 0) {
      brisk::cuda::ActivityRecorder recorder;
      recorder.start();
      for (int i = 0; i < args.activity_steps; ++i) timed_step();
      sync();
      brisk::cuda::GpuActivity activity = recorder.stop();
      std::printf(" %.1f %.3f", static_cast<double>(activity.kernels) / args.activity_steps, activity.busy_share());
    }
    if (device.is_sim()) {
      brisk::sim::reset_kernel_counts();
      timed_step();
      const brisk::sim::KernelCounts counts = brisk::sim::kernel_counts();
      std::printf(" %llu -", static_cast<unsigned long long>(counts.run + counts.replayed));
    }
    std::printf("\n");
  }
  if (device.is_cuda()) {
    for (const auto& choice : brisk::cuda::conv_algorithm_choices()) {
      std::printf("conv %s\n", brisk::cuda::describe(choice).c_str());
    }
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "train_bench: %s\n", e.what());
  return 1;
}
