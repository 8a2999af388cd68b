// The worker of mpi_transport_test, started by mpirun: `mpi_transport_worker <scenario>`, on the
// MPI backend. Each scenario prints "<scenario> ok" when every check passed; a failed check throws.
//
//   same_results  every collective (every ReduceOp and dtype, int64 AVG beyond 2^53, 16-bit
//                 floats rounded once on 4 ranks, uneven all_to_all with empty pieces,
//                 send/recv) on three groups of every rank: the CPU default group, and sim:0
//                 groups staged and direct (ProcessGroupOptions::mpi_cuda_direct). Each group's
//                 results equal the expected values, and the sim groups' equal the CPU group's
//                 bit for bit; the direct group makes no copy between the host and the device,
//                 the staged one does
//   timeout       on a direct sim group with a 2 s timeout, the last rank never enters
//                 all_reduce #1; the others fail within the timeout naming it
//   refused       a cuda:0 group under BRISK_MPI_CUDA_DIRECT=1 (set by the test) with Debian's
//                 Open MPI, which is not CUDA-aware: every rank prints the refusal
#include <cmath>
#include <cstring>
#include <functional>
#include <iostream>
#include <thread>

#include "distributed/distributed.h"
#include "tensor/error.h"
#include "tensor/native/ops.h"
#include "tensor/sim/sim_backend.h"

using namespace brisk;
using namespace std::chrono_literals;
using DOp = dist::ReduceOp;

namespace {

#define EXPECT(cond, ...) \
  BRISK_CHECK(cond, "rank {}: check failed: {}: {}", dist::get_rank(), #cond, fmt::format(__VA_ARGS__))

const std::vector<DType> kDTypes = {kFloat32, kFloat64, kInt64, kInt32, kUInt8, kBFloat16, kFloat16};

Tensor host_tensor(const std::vector<double>& values, DType dtype) {
  Tensor t = native::from_vector<double>(values, {static_cast<int64_t>(values.size())}, TensorOptions(kFloat64));
  // 16-bit floats through float32, as the backends round their float32 results.
  if (dtype == kBFloat16 || dtype == kFloat16) t = native::to(t, kCPU, kFloat32);
  return native::to(t, kCPU, dtype);
}

// Rank r's values for a tensor of n elements (`salt` tells tensors apart): 1, 2 or 3, quarters of
// them for floating point, so that sums, products, minima and maxima over 4 ranks are exact in
// every dtype and in any order (MPI's algorithms may differ between its calls).
std::vector<double> values_of(int r, int salt, int64_t n, DType dtype) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) {
    const double whole = static_cast<double>((r + salt + i) % 3 + 1);
    v.push_back(is_floating_point(dtype) ? whole / 4 : whole);
  }
  return v;
}

// What `op` over every rank's values_of(r, salt, n) gives, as the backends compute it: floating
// point AVG divides the exact sum (in float32 for 16-bit floats), integer AVG truncates.
Tensor reduced_of(DOp op, int size, int salt, int64_t n, DType dtype) {
  std::vector<double> acc = values_of(0, salt, n, dtype);
  for (int r = 1; r < size; ++r) {
    std::vector<double> v = values_of(r, salt, n, dtype);
    for (int64_t i = 0; i < n; ++i) {
      double& a = acc[static_cast<size_t>(i)];
      const double b = v[static_cast<size_t>(i)];
      switch (op) {
        case DOp::SUM:
        case DOp::AVG: a += b; break;
        case DOp::PRODUCT: a *= b; break;
        case DOp::MIN: a = std::min(a, b); break;
        case DOp::MAX: a = std::max(a, b); break;
      }
    }
  }
  if (op == DOp::AVG) {
    for (double& a : acc) {
      a = !is_floating_point(dtype) ? std::trunc(a / size)
          : dtype == kFloat64       ? a / size
                                    : static_cast<double>(static_cast<float>(a) / static_cast<float>(size));
    }
  }
  return host_tensor(acc, dtype);
}

// One operation of the comparison: `tensors` (made on the host, run on the group's device) and
// what `run` leaves in the first `results` of them, which must equal `expected` (host tensors).
struct Step {
  std::string name;
  std::vector<Tensor> tensors;
  std::function<void(dist::ProcessGroup&, std::vector<Tensor>&)> run;
  std::vector<Tensor> expected;
};

std::vector<Step> steps(int r, int n) {
  std::vector<Step> all;
  auto add = [&](std::string name, std::vector<Tensor> tensors, std::vector<Tensor> expected,
                 std::function<void(dist::ProcessGroup&, std::vector<Tensor>&)> run) {
    all.push_back({std::move(name), std::move(tensors), std::move(run), std::move(expected)});
  };
  for (DType dtype : kDTypes) {
    const std::string d = dtype_name(dtype);
    auto mine = [&](int salt, int64_t len) { return host_tensor(values_of(r, salt, len, dtype), dtype); };
    for (DOp op : {DOp::SUM, DOp::PRODUCT, DOp::MIN, DOp::MAX, DOp::AVG}) {
      const std::string o(dist::reduce_op_name(op));
      add("all_reduce " + d + " " + o, {mine(1, 5)}, {reduced_of(op, n, 1, 5, dtype)},
          [op](dist::ProcessGroup& g, std::vector<Tensor>& t) { g.all_reduce(t[0], op)->wait(); });
      const int root = n - 1;
      add("reduce " + d + " " + o, {mine(2, 3)},
          r == root ? std::vector<Tensor>{reduced_of(op, n, 2, 3, dtype)} : std::vector<Tensor>{},
          [op, root](dist::ProcessGroup& g, std::vector<Tensor>& t) { g.reduce(t[0], root, op)->wait(); });
      // reduce_scatter: inputs[j] is values_of(r, 10 + j); rank r gets the reduction of slot r.
      std::vector<Tensor> tensors{host_tensor(std::vector<double>(2, 0.0), dtype)};
      for (int j = 0; j < n; ++j) tensors.push_back(mine(10 + j, 2));
      add("reduce_scatter " + d + " " + o, tensors, {reduced_of(op, n, 10 + r, 2, dtype)},
          [op](dist::ProcessGroup& g, std::vector<Tensor>& t) {
            std::vector<Tensor> inputs(t.begin() + 1, t.end());
            g.reduce_scatter(t[0], inputs, op)->wait();
          });
    }
    for (int root = 0; root < n; ++root) {
      add("broadcast " + d + " root " + std::to_string(root), {mine(3, 4)},
          {host_tensor(values_of(root, 3, 4, dtype), dtype)},
          [root](dist::ProcessGroup& g, std::vector<Tensor>& t) { g.broadcast(t[0], root)->wait(); });
    }
    // all_gather and gather (root 1 % n): outputs[j] = values_of(j, 4); the input is last.
    std::vector<Tensor> outputs, expected;
    for (int j = 0; j < n; ++j) {
      outputs.push_back(host_tensor(std::vector<double>(3, 0.0), dtype));
      expected.push_back(host_tensor(values_of(j, 4, 3, dtype), dtype));
    }
    std::vector<Tensor> tensors = outputs;
    tensors.push_back(mine(4, 3));
    auto gathering = [](auto gather) {
      return [gather](dist::ProcessGroup& g, std::vector<Tensor>& t) {
        std::vector<Tensor> outs(t.begin(), t.end() - 1);
        gather(g, outs, t.back());
      };
    };
    add("all_gather " + d, tensors, expected,
        gathering([](dist::ProcessGroup& g, std::vector<Tensor>& outs, const Tensor& in) {
          g.all_gather(outs, in)->wait();
        }));
    const int gather_root = 1 % n;
    add("gather " + d, tensors, r == gather_root ? expected : std::vector<Tensor>{},
        gathering([gather_root](dist::ProcessGroup& g, std::vector<Tensor>& outs, const Tensor& in) {
          g.gather(outs, in, gather_root)->wait();
        }));
    // scatter from root 0: rank r gets values_of(0, 20 + r).
    std::vector<Tensor> scattered{host_tensor(std::vector<double>(2, 0.0), dtype)};
    for (int j = 0; j < n; ++j) scattered.push_back(mine(20 + j, 2));
    add("scatter " + d, scattered, {host_tensor(values_of(0, 20 + r, 2, dtype), dtype)},
        [r](dist::ProcessGroup& g, std::vector<Tensor>& t) {
          std::vector<Tensor> inputs = r == 0 ? std::vector<Tensor>(t.begin() + 1, t.end()) : std::vector<Tensor>{};
          g.scatter(t[0], inputs, 0)->wait();
        });
    // Uneven all_to_all: rank r sends (r + 2j) % 3 elements (none for some pairs) of
    // values_of(r, 30 + j) to rank j.
    std::vector<Tensor> received, sent, from;
    for (int j = 0; j < n; ++j) {
      const int64_t in_len = (j + 2 * r) % 3, out_len = (r + 2 * j) % 3;
      received.push_back(host_tensor(std::vector<double>(static_cast<size_t>(in_len), 0.0), dtype));
      from.push_back(host_tensor(values_of(j, 30 + r, in_len, dtype), dtype));
      sent.push_back(mine(30 + j, out_len));
    }
    tensors = received;
    tensors.insert(tensors.end(), sent.begin(), sent.end());
    add("all_to_all " + d, tensors, from, [n](dist::ProcessGroup& g, std::vector<Tensor>& t) {
      std::vector<Tensor> outs(t.begin(), t.begin() + n), ins(t.begin() + n, t.end());
      g.all_to_all(outs, ins)->wait();
    });
    // send/recv around the ring: rank r receives values_of(r - 1, 40).
    if (n > 1) {
      const int next = (r + 1) % n, prev = (r + n - 1) % n;
      add("send/recv " + d, {host_tensor(std::vector<double>(3, 0.0), dtype), mine(40, 3)},
          {host_tensor(values_of(prev, 40, 3, dtype), dtype)},
          [next, prev](dist::ProcessGroup& g, std::vector<Tensor>& t) {
            auto sending = g.send(t[1], next);
            g.recv(t[0], prev)->wait();
            sending->wait();
          });
    }
  }
  // int64 AVG beyond float64's 2^53 truncates exactly: rank r holds 2^60 + 1000003 r + i.
  {
    std::vector<int64_t> mine, sum(3, 0);
    for (int j = 0; j < n; ++j)
      for (int64_t i = 0; i < 3; ++i) {
        const int64_t v = (int64_t{1} << 60) + 1000003 * j + i;
        sum[static_cast<size_t>(i)] += v;
        if (j == r) mine.push_back(v);
      }
    for (int64_t& s : sum) s /= n;
    add("all_reduce int64 AVG beyond 2^53", {native::from_vector<int64_t>(mine, {3}, TensorOptions(kInt64))},
        {native::from_vector<int64_t>(sum, {3}, TensorOptions(kInt64))},
        [](dist::ProcessGroup& g, std::vector<Tensor>& t) { g.all_reduce(t[0], DOp::AVG)->wait(); });
  }
  // 16-bit floats reduce in float32 and round once: rank 0 holds 1, the others half a unit in
  // the last place of 1 each; the float32 sum 1 + 1.5 ulp (4 ranks) rounds to 1 + 2 ulp, where
  // rounding each partial sum to 16 bits would stay at 1.
  if (n == 4) {
    for (DType dtype : {kBFloat16, kFloat16}) {
      const double half_ulp = dtype == kBFloat16 ? 0.00390625 : 0.00048828125;
      const double value = r == 0 ? 1.0 : half_ulp;
      const Tensor expected = host_tensor({1.0 + 4 * half_ulp}, dtype);
      add(std::string("rounded once: all_reduce ") + dtype_name(dtype), {host_tensor({value}, dtype)}, {expected},
          [](dist::ProcessGroup& g, std::vector<Tensor>& t) { g.all_reduce(t[0])->wait(); });
      add(std::string("rounded once: reduce ") + dtype_name(dtype), {host_tensor({value}, dtype)},
          r == 3 ? std::vector<Tensor>{expected} : std::vector<Tensor>{},
          [](dist::ProcessGroup& g, std::vector<Tensor>& t) { g.reduce(t[0], 3)->wait(); });
      std::vector<Tensor> tensors{host_tensor({0.0}, dtype)};
      for (int j = 0; j < n; ++j) tensors.push_back(host_tensor({value}, dtype));
      add(std::string("rounded once: reduce_scatter ") + dtype_name(dtype), tensors, {expected},
          [](dist::ProcessGroup& g, std::vector<Tensor>& t) {
            std::vector<Tensor> inputs(t.begin() + 1, t.end());
            g.reduce_scatter(t[0], inputs)->wait();
          });
    }
  }
  return all;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.sizes() == b.sizes() &&
         (a.nbytes() == 0 || std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0);
}

// Runs every step on `group` with its tensors on the group's device; returns the results on the
// host, and in `copies` the host<->device copies the operations made.
std::vector<std::vector<Tensor>> run_steps(dist::ProcessGroup& group, sim::CopyCounts& copies) {
  const Device device = group.device();
  std::vector<Step> all = steps(group.rank(), group.size());
  for (Step& step : all)
    for (Tensor& t : step.tensors) t = native::to(t, device, t.dtype());
  sim::reset_copy_counts();
  for (Step& step : all) step.run(group, step.tensors);
  group.barrier()->wait();
  copies = sim::copy_counts();
  std::vector<std::vector<Tensor>> results;
  for (const Step& step : all) {
    std::vector<Tensor> got;
    for (size_t i = 0; i < step.expected.size(); ++i) {
      got.push_back(native::to(step.tensors[i], kCPU, step.tensors[i].dtype()));
      EXPECT(same_bits(got.back(), step.expected[i]), "{} on {} group: result {} is {}, expected {}", step.name, device,
             i, got.back().describe(), step.expected[i].describe());
    }
    results.push_back(std::move(got));
  }
  return results;
}

void same_results() {
  const int n = dist::get_world_size();
  std::vector<int> all;
  for (int j = 0; j < n; ++j) all.push_back(j);
  dist::ProcessGroupOptions options;
  options.device = sim_device(0);
  options.mpi_cuda_direct = false;
  auto staged = dist::new_group(all, options);
  options.mpi_cuda_direct = true;
  auto direct = dist::new_group(all, options);

  sim::CopyCounts cpu_copies, staged_copies, direct_copies;
  const auto on_cpu = run_steps(*dist::default_group(), cpu_copies);
  const auto on_staged = run_steps(*staged, staged_copies);
  const auto on_direct = run_steps(*direct, direct_copies);
  const std::vector<Step> described = steps(dist::get_rank(), n);
  for (size_t s = 0; s < on_cpu.size(); ++s) {
    for (size_t i = 0; i < on_cpu[s].size(); ++i) {
      EXPECT(same_bits(on_staged[s][i], on_cpu[s][i]), "{}: staged differs from the CPU's", described[s].name);
      EXPECT(same_bits(on_direct[s][i], on_cpu[s][i]), "{}: direct differs from the CPU's", described[s].name);
    }
  }
  // Staging copies every tensor to the host and results back; direct mode copies nothing.
  EXPECT(staged_copies.host_to_device > 0 && staged_copies.device_to_host > 0, "staged made {} / {} copies",
         staged_copies.host_to_device, staged_copies.device_to_host);
  EXPECT(direct_copies.host_to_device == 0 && direct_copies.device_to_host == 0,
         "direct mode made {} host-to-device and {} device-to-host copies", direct_copies.host_to_device,
         direct_copies.device_to_host);
  std::cout << fmt::format("{} steps; staged copies {} to the device, {} to the host; direct copies 0", on_cpu.size(),
                           staged_copies.host_to_device, staged_copies.device_to_host)
            << std::endl;
}

void timeout_scenario() {
  const int r = dist::get_rank(), n = dist::get_world_size();
  std::vector<int> all;
  for (int j = 0; j < n; ++j) all.push_back(j);
  dist::ProcessGroupOptions options;
  options.device = sim_device(0);
  options.mpi_cuda_direct = true;
  options.timeout = 2s;
  auto direct = dist::new_group(all, options);
  Tensor t = native::to(host_tensor({1.0}, kFloat32), sim_device(0), kFloat32);
  direct->all_reduce(t)->wait();  // #0: everyone
  if (r == n - 1) {
    std::cout << "skipping all_reduce #1" << std::endl;
    std::this_thread::sleep_for(30s);  // mpirun stops us once another rank failed
    return;
  }
  direct->all_reduce(t)->wait();  // #1: throws; left uncaught it terminates this process
}

void refused() {
  const int n = dist::get_world_size();
  std::vector<int> all;
  for (int j = 0; j < n; ++j) all.push_back(j);
  dist::ProcessGroupOptions options;
  options.device = cuda_device(0);
  try {
    dist::new_group(all, options);
    EXPECT(false, "a cuda:0 group was made in direct mode with a library that is not CUDA-aware");
  } catch (const Error& e) {
    std::cout << "refused: " << e.what() << std::endl;
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string scenario = argc > 1 ? argv[1] : "";
  dist::ProcessGroupOptions options;
  options.timeout = 20s;
  dist::init_process_group("mpi", "env://", -1, -1, options);
  if (scenario == "same_results") same_results();
  else if (scenario == "timeout") timeout_scenario();
  else if (scenario == "refused") refused();
  else BRISK_FAIL("mpi_transport_worker: unknown scenario '{}'", scenario);
  dist::destroy_process_group();
  std::cout << scenario << " ok" << std::endl;
  return 0;
}
