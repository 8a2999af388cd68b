// What the instrumented library records while a profiler runs: every kernel call as an op
// (PyTorch's name, input shapes and dtypes), whichever entry point reached it; autograd
// nodes with the ops they ran nested in them; optimizer steps; the DataLoader's batches; and
// the Chrome trace and table made of them. Off, the same program records nothing.
#include <catch2/catch.hpp>

#include "autograd/ops.h"
#include "data/data_loader.h"
#include "data/tensor_dataset.h"
#include "optim/sgd.h"
#include "profiler/profiler.h"
#include "tensor/native/ops.h"
#include "tests/profiler/trace_reader.h"
#include "tests/scratch_files.h"

namespace brisk::profiler {
namespace {

using Catch::Matchers::Contains;

std::vector<const Event*> named(const std::vector<Event>& events, const std::string& name) {
  std::vector<const Event*> out;
  for (const Event& e : events) {
    if (e.name == name) out.push_back(&e);
  }
  return out;
}

std::string arg(const Event& e, const std::string& key) {
  for (const auto& [k, v] : e.args) {
    if (k == key) return v;
  }
  return "(none)";
}

bool contains(const Event& outer, const Event& inner) {
  return outer.thread_id == inner.thread_id && outer.start_ns <= inner.start_ns && inner.end_ns <= outer.end_ns;
}

// A small training step: a broadcasting mul of mixed dtypes, a sum, backward, an SGD step.
void train_step(const Tensor& w, optim::SGD& opt) {
  Tensor b = native::arange(0, 3, 1, TensorOptions(kInt64));
  Tensor loss = (w * b).sum();
  opt.zero_grad();
  loss.backward();
  opt.step();
}

TEST_CASE("profiler: ops with shapes and dtypes, autograd nodes, optimizer steps", "[profiler]") {
  Tensor w = native::ones({4, 1}).requires_grad_(true);
  optim::SGD opt({w}, optim::SGDOptions(0.1));
  train_step(w, opt);  // off: nothing recorded

  Profiler prof;
  prof.start();
  train_step(w, opt);
  prof.stop();
  const std::vector<Event>& events = prof.events();

  // The mul of [4, 1] float32 by [3] int64 reaches its kernel with both converted and
  // broadcast to [4, 3] float32 (the int64 operand's conversion is a copy_ of its own).
  std::vector<const Event*> muls = named(events, "mul");
  REQUIRE_FALSE(muls.empty());
  CHECK(muls[0]->category == Category::Op);
  CHECK(arg(*muls[0], "Input Dims") == "[[4, 3], [4, 3]]");
  CHECK(arg(*muls[0], "Input type") == "float32, float32");
  bool converted = false;
  for (const Event* copy : named(events, "copy_"))
    converted = converted || arg(*copy, "Input type") == "float32, int64";
  CHECK(converted);
  CHECK_FALSE(named(events, "sum").empty());

  // Backward: MulBackward runs its gradient's mul nested in it, on the same thread.
  std::vector<const Event*> mul_backward = named(events, "MulBackward");
  REQUIRE(mul_backward.size() == 1);
  CHECK(mul_backward[0]->category == Category::Autograd);
  bool nested_mul = false;
  for (const Event* m : muls) nested_mul = nested_mul || contains(*mul_backward[0], *m);
  CHECK(nested_mul);

  std::vector<const Event*> steps = named(events, "Optimizer.step#SGD.step");
  REQUIRE(steps.size() == 1);
  CHECK(steps[0]->category == Category::Optimizer);
  // One multi-tensor kernel for every parameter of the group (here one): its inputs are lists.
  std::vector<const Event*> kernels = named(events, "_fused_sgd_");
  REQUIRE(kernels.size() == 1);
  CHECK(contains(*steps[0], *kernels[0]));
  CHECK(arg(*kernels[0], "Input Dims") == "[[[4, 1]], [[4, 1]]]");
  CHECK(arg(*kernels[0], "Input type") == "TensorList, TensorList");

  // The table: the step's total includes its kernel.
  KeyAverages averages = prof.key_averages();
  const KeyAverage* step = averages.find("Optimizer.step#SGD.step");
  REQUIRE(step);
  CHECK(step->total_ns >= averages.find("_fused_sgd_")->total_ns);
  CHECK(step->self_ns == step->total_ns - averages.find("_fused_sgd_")->total_ns);
  std::string table = averages.table("cpu_time_total", 5);
  CHECK_THAT(table, Contains("Self CPU time total: "));
  CHECK_THAT(table, Contains("Optimizer.step#SGD.step"));
}

TEST_CASE("profiler: the DataLoader's batches, on its worker threads", "[profiler]") {
  auto dataset = std::make_shared<data::TensorDataset>(native::arange(0, 8, 1, TensorOptions(kFloat32)),
                                                       native::arange(0, 8, 1, TensorOptions(kInt64)));
  data::DataLoader loader(dataset, data::DataLoaderOptions().batch_size(4).num_workers(2));
  Profiler prof;
  prof.start();
  int64_t batches = 0;
  for (data::Batch& batch : loader) batches += batch.data.size(0) > 0;
  prof.stop();
  REQUIRE(batches == 2);
  std::vector<const Event*> loads = named(prof.events(), "DataLoader.load_batch");
  std::vector<const Event*> nexts = named(prof.events(), "DataLoader.next");
  REQUIRE(loads.size() == 2);
  CHECK(nexts.size() == 2);
  CHECK(loads[0]->category == Category::DataLoading);
  CHECK(loads[0]->thread_id != nexts[0]->thread_id);  // num_workers 2: loaded off the main thread
}

TEST_CASE("profiler: the Chrome trace holds every event, with microsecond times and args", "[profiler]") {
  Tensor w = native::ones({4, 1}).requires_grad_(true);
  optim::SGD opt({w}, optim::SGDOptions(0.1));
  Profiler prof;
  prof.start();
  train_step(w, opt);
  record_interval(Category::Ddp, "interval", now_ns() - 1000, now_ns());
  prof.stop();
  std::string path = testing::scratch_dir("profiler_trace") + "/trace.json";
  prof.export_chrome_trace(path, "rank 0");
  std::vector<testing::TraceEvent> trace = testing::read_trace(path);
  REQUIRE(trace.size() == prof.events().size());
  for (size_t i = 0; i < trace.size(); ++i) {
    const Event& e = prof.events()[i];
    INFO(e.name);
    CHECK(trace[i].name == e.name);
    CHECK(trace[i].cat == category_name(e.category));
    CHECK(trace[i].dur == Approx(static_cast<double>(e.duration_ns()) / 1e3));
    CHECK(trace[i].async == e.async);
  }
  CHECK(testing::events_of(trace, "cpu_op").size() > 3);
  CHECK(testing::events_of(trace, "autograd").size() >= 2);
  CHECK(testing::events_of(trace, "optimizer").size() == 1);
  CHECK(testing::events_of(trace, "ddp").size() == 1);
  CHECK(testing::events_of(trace, "cpu_op")[0].args.contains("Input Dims"));
  CHECK_THROWS_WITH(prof.export_chrome_trace("/nonexistent/dir/trace.json"),
                    Contains("cannot open the trace file /nonexistent/dir/trace.json"));
}

}  // namespace
}  // namespace brisk::profiler
