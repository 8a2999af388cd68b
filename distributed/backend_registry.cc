#include "distributed/backend_registry.h"

#include <map>
#include <mutex>
#include <vector>

#include "distributed/gloo/process_group_gloo.h"
#include "tensor/error.h"

namespace brisk::dist {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, ProcessGroupFactory> factories;
  std::map<std::string, BackendRendezvousFn> rendezvous;
};

Registry& registry() {
  static Registry* r = [] {
    auto* fresh = new Registry;
    fresh->factories["gloo"] = [](std::shared_ptr<Store> store, int rank, int size,
                                  const ProcessGroupOptions& options) -> std::shared_ptr<ProcessGroup> {
      return std::make_shared<ProcessGroupGloo>(std::move(store), rank, size, options);
    };
    return fresh;
  }();
  return *r;
}

}  // namespace

bool register_process_group_backend(const std::string& name, ProcessGroupFactory factory) {
  std::lock_guard<std::mutex> lock(registry().mutex);
  registry().factories[name] = std::move(factory);
  return true;
}

const ProcessGroupFactory& process_group_backend(const std::string& name) {
  std::lock_guard<std::mutex> lock(registry().mutex);
  auto it = registry().factories.find(name);
  if (it == registry().factories.end()) {
    std::vector<std::string> names;
    for (const auto& [known, f] : registry().factories) names.push_back(known);
    BRISK_FAIL("init_process_group: unknown backend '{}' (available: {}{})", name, fmt::join(names, ", "),
               name == "nccl"  ? "; nccl needs a CUDA build linking //distributed/nccl"
               : name == "mpi" ? "; mpi needs a program linking //distributed/mpi"
                               : "");
  }
  return it->second;
}

bool register_backend_rendezvous(const std::string& name, BackendRendezvousFn rendezvous) {
  std::lock_guard<std::mutex> lock(registry().mutex);
  registry().rendezvous[name] = std::move(rendezvous);
  return true;
}

const BackendRendezvousFn* backend_rendezvous(const std::string& name) {
  std::lock_guard<std::mutex> lock(registry().mutex);
  auto it = registry().rendezvous.find(name);
  return it == registry().rendezvous.end() ? nullptr : &it->second;
}

}  // namespace brisk::dist
