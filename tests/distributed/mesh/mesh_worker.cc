// A test worker (device_mesh_multiprocess_test): on 4 processes, a 2x2 DeviceMesh built with
// dist::new_group: every rank's coordinate and members along both dimensions, and an all_reduce
// and an all_gather on each dimension's group. Prints "mesh ok".
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "distributed/distributed.h"
#include "distributed/mesh/device_mesh.h"
#include "tensor/native/ops.h"
#include "tests/distributed/testing/worker_group.h"

namespace brisk::dist::testing {
namespace {

// The mismatches found, as text (empty when the mesh is right).
std::string check_mesh(const std::shared_ptr<ProcessGroup>& world) {
  const int rank = get_rank();
  if (get_world_size() != 4) return "the worker runs on 4 ranks";
  DeviceMesh mesh({{"dp", 2}, {"tp", 2}});
  std::string problems;
  const std::map<std::string, std::vector<int>> members{{"dp", {rank % 2, rank % 2 + 2}},
                                                        {"tp", {rank / 2 * 2, rank / 2 * 2 + 1}}};
  if (mesh.coordinate() != std::vector<int>{rank / 2, rank % 2}) problems += "coordinate; ";
  for (const auto& [dim, expected] : members) {
    if (mesh.ranks_along(dim) != expected) problems += dim + " members; ";
    const GroupPtr& group = mesh.group(dim);
    if (group->rank() != mesh.local_rank(dim) || group->size() != 2) problems += dim + " group rank; ";
    Tensor value =
        native::full({1}, Scalar(static_cast<double>(rank)), TensorOptions(kFloat64).device(world->device()));
    group->all_reduce(value)->wait();
    if (value.item<double>() != expected[0] + expected[1]) problems += dim + " all_reduce; ";
    std::vector<Tensor> gathered{native::empty({1}, value.options()), native::empty({1}, value.options())};
    Tensor mine = native::full({1}, Scalar(static_cast<double>(rank)), value.options());
    group->all_gather(gathered, mine)->wait();
    if (gathered[0].item<double>() != expected[0] || gathered[1].item<double>() != expected[1])
      problems += dim + " all_gather; ";
  }
  return problems;
}

int run(const std::string&, const std::shared_ptr<ProcessGroup>& group) {
  const std::string problems = check_mesh(group);
  std::printf("mesh %s %s\n", problems.empty() ? "ok" : "FAILED", problems.c_str());
  std::fflush(stdout);
  destroy_process_group();
  return problems.empty() ? 0 : 1;
}

}  // namespace
}  // namespace brisk::dist::testing

int main(int argc, char** argv) {
  return brisk::dist::testing::worker_main(argc, argv, "all|mesh", brisk::dist::testing::run);
}
