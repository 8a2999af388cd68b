// Every Backend method passes through the two wrappers, ProfiledBackend and SimBackend, to the
// backend they wrap: each method of tensor/backend.h's list is called once on a wrapper
// around a backend that records what reaches it, which must be that method, once, with its
// tensors (host aliases, behind the simulated device), and one op event per call while a
// profiler records.
#include <catch2/catch.hpp>

#include <string>
#include <type_traits>
#include <vector>

#include "profiler/profiler.h"
#include "tensor/native/ops.h"
#include "tensor/profiled_backend.h"
#include "tensor/sim/sim_backend.h"

namespace brisk {
namespace {

// One call that reached the recording backend: the method and the devices of its defined
// tensor arguments, in order.
struct Call {
  std::string method;
  std::vector<Device> devices;
};

// Records every call; its methods come from the same list, so it has every method there is.
class RecordingBackend final : public Backend {
 public:
#define BRISK_RECORD(name, params, args, event, inputs) \
  void name params override { record(#name, BRISK_BACKEND_UNPACK args); }
  BRISK_BACKEND_METHODS(BRISK_RECORD)
#undef BRISK_RECORD

  std::vector<Call> calls;

 private:
  template <typename... Args>
  void record(const char* method, const Args&... args) {
    Call call{method, {}};
    auto note_tensor = [&](const Tensor& t) {
      if (t.defined()) call.devices.push_back(t.device());
    };
    auto note = [&](const auto& arg) {
      using Arg = std::decay_t<decltype(arg)>;
      if constexpr (std::is_same_v<Arg, Tensor>) note_tensor(arg);
      if constexpr (std::is_same_v<Arg, std::vector<Tensor>>) {
        for (const Tensor& t : arg) note_tensor(t);
      }
    };
    (note(args), ...);
    calls.push_back(std::move(call));
  }
};

// The argument of type P in a generated call: `t` for every tensor, {t} for every list of
// tensors, otherwise a value-initialized P (an op enum's first op, zero, default params, no
// dims).
template <typename P>
decltype(auto) argument(const Tensor& t) {
  if constexpr (std::is_same_v<std::decay_t<P>, Tensor>) {
    return (t);
  } else if constexpr (std::is_same_v<std::decay_t<P>, std::vector<Tensor>>) {
    return std::vector<Tensor>{t};
  } else {
    return std::decay_t<P>{};
  }
}

template <typename... Params>
void call_with(Backend& backend, void (Backend::*method)(Params...), const Tensor& t) {
  (backend.*method)(argument<Params>(t)...);
}

// Calls every method of `backend` once, in the list's order, with `t` for every tensor;
// returns the names of the methods called.
std::vector<std::string> call_every_method(Backend& backend, const Tensor& t) {
  std::vector<std::string> called;
#define BRISK_CALL(name, params, args, event, inputs) \
  call_with(backend, &Backend::name, t);              \
  called.push_back(#name);
  BRISK_BACKEND_METHODS(BRISK_CALL)
#undef BRISK_CALL
  return called;
}

std::vector<std::string> methods_of(const std::vector<Call>& calls) {
  std::vector<std::string> out;
  for (const Call& c : calls) out.push_back(c.method);
  return out;
}

std::vector<const profiler::Event*> op_events(const profiler::Profiler& prof) {
  std::vector<const profiler::Event*> out;
  for (const profiler::Event& e : prof.events()) {
    if (e.category == profiler::Category::Op) out.push_back(&e);
  }
  return out;
}

TEST_CASE("the profiled backend forwards every method once and records one op event for each") {
  RecordingBackend inner;
  ProfiledBackend profiled(inner);
  Tensor t = native::ones({2});

  profiler::Profiler prof;
  prof.start();
  std::vector<std::string> called = call_every_method(profiled, t);
  prof.stop();

  CHECK(methods_of(inner.calls) == called);
  for (const Call& c : inner.calls) {
    INFO(c.method);
    CHECK_FALSE(c.devices.empty());
  }
  std::vector<const profiler::Event*> events = op_events(prof);
  REQUIRE(events.size() == called.size());
  // The event names are PyTorch's, not the methods'; spot-check the ones that differ.
  for (const char* name : {"copy_", "bmm", "scatter_add_", "_amp_foreach_non_finite_check_and_unscale_"}) {
    INFO(name);
    bool found = false;
    for (const profiler::Event* e : events) found = found || e->name == name;
    CHECK(found);
  }
  // A list input is described as the list of its tensors' dims, its type as TensorList.
  for (const profiler::Event* e : events) {
    if (e->name != "_fused_sgd_") continue;
    CHECK(e->args.at(0) == std::make_pair(std::string("Input Dims"), std::string("[[[2]], [[2]]]")));
    CHECK(e->args.at(1) == std::make_pair(std::string("Input type"), std::string("TensorList, TensorList")));
  }

  CHECK_FALSE(profiled.has_batch_norm());
  CHECK(ProfiledBackend(cpu_backend()).has_batch_norm());
}

TEST_CASE("the simulated device forwards every method to the host's backend on host aliases") {
  RecordingBackend host;
  sim::SimBackend sim(host);
  Tensor t = native::ones({2}, sim_device(0));

  std::vector<std::string> called = call_every_method(sim, t);

  CHECK(methods_of(host.calls) == called);
  for (const Call& c : host.calls) {
    INFO(c.method);
    CHECK_FALSE(c.devices.empty());
    for (const Device& d : c.devices) CHECK(d == kCPU);
  }
}

TEST_CASE("a profiled op on the simulated device is one op event") {
  // The wrappers as backend_for() stacks them while a profiler records.
  RecordingBackend host;
  sim::SimBackend sim(host);
  ProfiledBackend profiled(sim);
  Tensor t = native::ones({2}, sim_device(0));

  profiler::Profiler prof;
  prof.start();
  std::vector<std::string> called = call_every_method(profiled, t);
  prof.stop();

  CHECK(methods_of(host.calls) == called);
  CHECK(op_events(prof).size() == called.size());
}

}  // namespace
}  // namespace brisk
