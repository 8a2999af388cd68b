#include "distributed/distributed.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <thread>

#include "distributed/backend_registry.h"
#include "distributed/job_environment.h"
#include "distributed/rendezvous.h"
#include "distributed/store/file_store.h"
#include "distributed/store/prefix_store.h"
#include "distributed/store/tcp_store.h"
#include "tensor/error.h"

namespace brisk::dist {
namespace {

struct State {
  std::mutex mutex;
  std::shared_ptr<Store> store;
  std::shared_ptr<ProcessGroup> world;
  std::string backend;
  int groups_created = 0;
  // Global ranks of every group this process belongs to (the default group included).
  std::map<const ProcessGroup*, std::vector<int>> members;
};

State& state() {
  static State* s = new State;
  return *s;
}

uint16_t parse_port(const std::string& text, const std::string& what) {
  char* end = nullptr;
  long port = std::strtol(text.c_str(), &end, 10);
  BRISK_CHECK(!text.empty() && *end == '\0' && port > 0 && port < 65536,
              "init_process_group: {} port '{}' is not in 1..65535", what, text);
  return static_cast<uint16_t>(port);
}

const std::vector<int>& members_of(const GroupPtr& group) {
  auto it = state().members.find(group.get());
  BRISK_CHECK(it != state().members.end(), "distributed: this process group was not created by init_process_group or "
                                           "new_group (or was destroyed)");
  return it->second;
}

// The group to act on (default: the world) and `global` translated into its ranks.
GroupPtr resolve(const GroupPtr& group, const char* op) {
  std::lock_guard<std::mutex> lock(state().mutex);
  BRISK_CHECK(state().world != nullptr, "distributed {}: call init_process_group first", op);
  return group ? group : state().world;
}

int to_group_rank(const GroupPtr& group, int global, const char* op, const char* role) {
  std::lock_guard<std::mutex> lock(state().mutex);
  const auto& ranks = members_of(group);
  auto it = std::find(ranks.begin(), ranks.end(), global);
  BRISK_CHECK(it != ranks.end(), "distributed {}: {} rank {} is not in the group (ranks [{}])", op, role, global,
              fmt::join(ranks, ", "));
  return static_cast<int>(it - ranks.begin());
}

std::shared_ptr<Work> finish(std::shared_ptr<Work> work, bool async_op) {
  if (!async_op) work->wait();
  return work;
}

}  // namespace

void init_process_group(const std::string& backend, const std::string& init_method, int world_size, int rank,
                        ProcessGroupOptions options) {
  State& s = state();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    BRISK_CHECK(s.world == nullptr, "init_process_group: already initialized (call destroy_process_group first)");
  }
  auto starts_with = [&](const char* prefix) { return init_method.rfind(prefix, 0) == 0; };
  std::string rank_from = "argument", size_from = "argument";
  JobEnvironment job;
  if (rank < 0 || world_size < 0 || starts_with("env://")) {
    job = resolve_job_environment(fmt::format("init_process_group({})", init_method));
    if (rank < 0) {
      rank = job.rank.value;
      rank_from = job.rank.reading;
    }
    if (world_size < 0) {
      world_size = job.world_size.value;
      size_from = job.world_size.reading;
    }
  }
  // A backend that knows the job by itself (MPI under mpirun) brings up the store when the
  // environment names no store host.
  BackendRendezvous own;
  const BackendRendezvousFn* backend_own = backend_rendezvous(backend);
  if (starts_with("env://") && !job.master_addr.known() && backend_own != nullptr) {
    own = (*backend_own)(options);
    BRISK_CHECK(rank < 0 || rank == own.rank, "init_process_group({}): rank {} (from {}) is rank {} of {}", init_method,
                rank, rank_from, own.rank, own.source);
    BRISK_CHECK(world_size < 0 || world_size == own.world_size,
                "init_process_group({}): world size {} (from {}) differs from {}'s {}", init_method, world_size,
                size_from, own.source, own.world_size);
    if (rank < 0) {
      rank = own.rank;
      rank_from = own.source;
    }
    if (world_size < 0) {
      world_size = own.world_size;
      size_from = own.source;
    }
  }
  BRISK_CHECK(rank >= 0,
              "init_process_group({}): the rank is unknown: pass it or start the process with a starter "
              "that sets it (RANK, SLURM_PROCID, OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK: docs/cluster.md)",
              init_method);
  BRISK_CHECK(world_size >= 1,
              "init_process_group({}): the world size is unknown: pass it or start the process with a starter that "
              "sets it (WORLD_SIZE, SLURM_STEP_NUM_TASKS, OMPI_COMM_WORLD_SIZE, PMI_SIZE: docs/cluster.md)",
              init_method);
  BRISK_CHECK(rank < world_size, "init_process_group: rank {} (from {}) is not below the world size {} (from {})", rank,
              rank_from, world_size, size_from);

  std::shared_ptr<Store> store = own.store;
  if (store != nullptr) {
    // Brought up by the backend (above).
  } else if (starts_with("env://") || starts_with("tcp://")) {
    std::string host;
    uint16_t port;
    if (starts_with("env://")) {
      BRISK_CHECK(job.master_addr.known(), "init_process_group({}): the store host is unknown: {}", init_method,
                  store_host_hint(job));
      BRISK_CHECK(job.master_port.known(), "init_process_group({}): the store port is unknown: set MASTER_PORT",
                  init_method);
      host = job.master_addr.value;
      port = static_cast<uint16_t>(job.master_port.value);
    } else {
      std::string address = init_method.substr(6);
      size_t colon = address.rfind(':');
      BRISK_CHECK(colon != std::string::npos && colon > 0, "init_process_group: '{}' is not tcp://host:port",
                  init_method);
      host = address.substr(0, colon);
      if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
      port = parse_port(address.substr(colon + 1), init_method);
    }
    // Gloo binds to the interface that routes to the store (ProcessGroupGloo::device_host).
    ::setenv("MASTER_ADDR", host.c_str(), 0);
    TCPStoreOptions store_options;
    store_options.port = port;
    store_options.is_master = rank == 0;
    store_options.timeout = options.timeout;
    store_options.token = store_token_from_env();
    store_options.connect_timeout = rendezvous_timeout(options);
    try {
      store = std::make_shared<TCPStore>(host, store_options);
    } catch (const Error& e) {
      if (rank == 0) throw;
      BRISK_FAIL("rendezvous (rank {} of {}): cannot join the store that rank 0 hosts at {}:{} (rendezvous timeout {} "
                 "ms): {}",
                 rank, world_size, host, port, store_options.connect_timeout->count(), e.what());
    }
  } else if (starts_with("file://")) {
    std::string path = init_method.substr(7);
    BRISK_CHECK(!path.empty(), "init_process_group: '{}' names no file", init_method);
    store = std::make_shared<FileStore>(path, options.timeout);
  } else {
    BRISK_FAIL("init_process_group: init_method '{}' is not env://, tcp://host:port or file://path", init_method);
  }

  rendezvous(*store, rank, world_size, size_from == "argument" ? "the world_size argument" : size_from, options);
  auto world =
      process_group_backend(backend)(std::make_shared<PrefixStore>("default_pg", store), rank, world_size, options);
  std::lock_guard<std::mutex> lock(s.mutex);
  s.store = store;
  s.world = world;
  s.backend = backend;
  s.groups_created = 0;
  std::vector<int> all(static_cast<size_t>(world_size));
  for (int r = 0; r < world_size; ++r) all[static_cast<size_t>(r)] = r;
  s.members[world.get()] = all;
}

void destroy_process_group() {
  State& s = state();
  std::shared_ptr<Store> store;
  int rank, world_size;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    BRISK_CHECK(s.world != nullptr, "destroy_process_group: no process group is initialized");
    store = s.store;
    rank = s.world->rank();
    world_size = s.world->size();
  }
  // Rank 0's process hosts the store: leaving first would cut the others off mid-call.
  try {
    store->add("destroyed", 1);
    if (rank == 0) {
      auto deadline = std::chrono::steady_clock::now() +
                      std::min<std::chrono::milliseconds>(store->timeout(), std::chrono::seconds(30));
      while (store->add("destroyed", 0) < world_size && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
  } catch (const Error&) {
    // The store's host is gone already: nothing left to wait for.
  }
  std::lock_guard<std::mutex> lock(s.mutex);
  s.members.clear();
  s.world.reset();
  s.store.reset();
  s.backend.clear();
}

bool is_initialized() {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().world != nullptr;
}

int get_rank() {
  std::lock_guard<std::mutex> lock(state().mutex);
  BRISK_CHECK(state().world != nullptr, "get_rank: call init_process_group first");
  return state().world->rank();
}

int get_world_size() {
  std::lock_guard<std::mutex> lock(state().mutex);
  BRISK_CHECK(state().world != nullptr, "get_world_size: call init_process_group first");
  return state().world->size();
}

std::string get_backend() {
  std::lock_guard<std::mutex> lock(state().mutex);
  BRISK_CHECK(state().world != nullptr, "get_backend: call init_process_group first");
  return state().backend;
}

std::shared_ptr<ProcessGroup> default_group() { return resolve(nullptr, "default_group"); }

std::shared_ptr<Store> default_store() {
  std::lock_guard<std::mutex> lock(state().mutex);
  BRISK_CHECK(state().store != nullptr, "default_store: call init_process_group first");
  return state().store;
}

std::shared_ptr<ProcessGroup> new_group(std::vector<int> ranks, ProcessGroupOptions options,
                                        const std::string& backend) {
  State& s = state();
  std::shared_ptr<Store> store;
  std::string chosen;
  int me, world_size, index;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    BRISK_CHECK(s.world != nullptr, "new_group: call init_process_group first");
    store = s.store;
    chosen = backend.empty() ? s.backend : backend;
    me = s.world->rank();
    world_size = s.world->size();
    index = ++s.groups_created;
  }
  std::sort(ranks.begin(), ranks.end());
  BRISK_CHECK(!ranks.empty(), "new_group: the rank list is empty");
  BRISK_CHECK(std::adjacent_find(ranks.begin(), ranks.end()) == ranks.end(), "new_group: ranks [{}] repeat a rank",
              fmt::join(ranks, ", "));
  BRISK_CHECK(ranks.front() >= 0 && ranks.back() < world_size, "new_group: ranks [{}] are not all in [0, {})",
              fmt::join(ranks, ", "), world_size);
  auto it = std::find(ranks.begin(), ranks.end(), me);
  if (it == ranks.end()) return nullptr;
  auto group =
      process_group_backend(chosen)(std::make_shared<PrefixStore>(fmt::format("group{}", index), store),
                                    static_cast<int>(it - ranks.begin()), static_cast<int>(ranks.size()), options);
  std::lock_guard<std::mutex> lock(s.mutex);
  s.members[group.get()] = ranks;
  return group;
}

int get_global_rank(const std::shared_ptr<ProcessGroup>& group, int group_rank) {
  std::lock_guard<std::mutex> lock(state().mutex);
  const auto& ranks = members_of(group);
  BRISK_CHECK(group_rank >= 0 && group_rank < static_cast<int>(ranks.size()),
              "get_global_rank: group rank {} is not in [0, {})", group_rank, ranks.size());
  return ranks[static_cast<size_t>(group_rank)];
}

int get_group_rank(const std::shared_ptr<ProcessGroup>& group, int global_rank) {
  std::lock_guard<std::mutex> lock(state().mutex);
  const auto& ranks = members_of(group);
  auto it = std::find(ranks.begin(), ranks.end(), global_rank);
  return it == ranks.end() ? -1 : static_cast<int>(it - ranks.begin());
}

std::shared_ptr<Work> broadcast(Tensor& tensor, int src, const GroupPtr& group, bool async_op) {
  GroupPtr g = resolve(group, "broadcast");
  return finish(g->broadcast(tensor, to_group_rank(g, src, "broadcast", "src")), async_op);
}

std::shared_ptr<Work> all_reduce(Tensor& tensor, ReduceOp op, const GroupPtr& group, bool async_op) {
  return finish(resolve(group, "all_reduce")->all_reduce(tensor, op), async_op);
}

std::shared_ptr<Work> reduce(Tensor& tensor, int dst, ReduceOp op, const GroupPtr& group, bool async_op) {
  GroupPtr g = resolve(group, "reduce");
  return finish(g->reduce(tensor, to_group_rank(g, dst, "reduce", "dst"), op), async_op);
}

std::shared_ptr<Work> all_gather(std::vector<Tensor>& outputs, const Tensor& input, const GroupPtr& group,
                                 bool async_op) {
  return finish(resolve(group, "all_gather")->all_gather(outputs, input), async_op);
}

std::shared_ptr<Work> gather(const Tensor& input, std::vector<Tensor>& outputs, int dst, const GroupPtr& group,
                             bool async_op) {
  GroupPtr g = resolve(group, "gather");
  return finish(g->gather(outputs, input, to_group_rank(g, dst, "gather", "dst")), async_op);
}

std::shared_ptr<Work> scatter(Tensor& output, const std::vector<Tensor>& inputs, int src, const GroupPtr& group,
                              bool async_op) {
  GroupPtr g = resolve(group, "scatter");
  return finish(g->scatter(output, inputs, to_group_rank(g, src, "scatter", "src")), async_op);
}

std::shared_ptr<Work> reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op,
                                     const GroupPtr& group, bool async_op) {
  return finish(resolve(group, "reduce_scatter")->reduce_scatter(output, inputs, op), async_op);
}

std::shared_ptr<Work> all_to_all(std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs, const GroupPtr& group,
                                 bool async_op) {
  return finish(resolve(group, "all_to_all")->all_to_all(outputs, inputs), async_op);
}

std::shared_ptr<Work> barrier(const GroupPtr& group, bool async_op) {
  return finish(resolve(group, "barrier")->barrier(), async_op);
}

std::shared_ptr<Work> isend(const Tensor& tensor, int dst, const GroupPtr& group, int tag) {
  GroupPtr g = resolve(group, "send");
  return g->send(tensor, to_group_rank(g, dst, "send", "dst"), tag);
}

std::shared_ptr<Work> irecv(Tensor& tensor, int src, const GroupPtr& group, int tag) {
  GroupPtr g = resolve(group, "recv");
  return g->recv(tensor, to_group_rank(g, src, "recv", "src"), tag);
}

void send(const Tensor& tensor, int dst, const GroupPtr& group, int tag) { isend(tensor, dst, group, tag)->wait(); }

void recv(Tensor& tensor, int src, const GroupPtr& group, int tag) { irecv(tensor, src, group, tag)->wait(); }

}  // namespace brisk::dist
