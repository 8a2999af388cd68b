// The MPI backend's rendezvous (distributed/backend_registry.h, BackendRendezvous): under
// mpirun no variable names a store host, so rank 0 hosts the job's TCPStore on a free port and
// broadcasts its address and a fresh token through MPI. The host is loopback when every process
// runs on rank 0's node (MPI_Get_processor_name), else rank 0's hostname; MASTER_ADDR is set to
// it, so Gloo subgroups beside MPI bind the interface that reaches it.
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "distributed/backend_registry.h"
#include "distributed/mpi/mpi_library.h"
#include "distributed/rendezvous.h"
#include "distributed/store/tcp_store.h"
#include "tensor/error.h"

namespace brisk::dist {
namespace {

// Whether every process runs on the same node as rank 0.
bool one_node() {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  std::vector<char> names(static_cast<size_t>(MPI_MAX_PROCESSOR_NAME) * static_cast<size_t>(mpi::world_size()));
  mpi::call([&] {
    mpi::check(MPI_Get_processor_name(name, &length), "MPI_Get_processor_name");
    mpi::check(MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                             MPI_COMM_WORLD),
               "MPI_Allgather");
  });
  const std::string first(names.data());
  for (int r = 1; r < mpi::world_size(); ++r)
    if (first != std::string(names.data() + static_cast<size_t>(r) * MPI_MAX_PROCESSOR_NAME)) return false;
  return true;
}

std::string fresh_token() {
  std::random_device device;
  return fmt::format("{:016x}{:016x}", (uint64_t{device()} << 32) | device(), (uint64_t{device()} << 32) | device());
}

// Rank 0's string, broadcast to every rank.
std::string broadcast_string(const std::string& value) {
  int length = static_cast<int>(value.size());
  std::string received;
  mpi::call([&] {
    mpi::check(MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
    received = mpi::world_rank() == 0 ? value : std::string(static_cast<size_t>(length), '\0');
    mpi::check(MPI_Bcast(received.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast");
  });
  return received;
}

BackendRendezvous mpi_rendezvous(const ProcessGroupOptions& options) {
  BackendRendezvous r;
  r.rank = mpi::world_rank();
  r.world_size = mpi::world_size();
  r.source = fmt::format("MPI_COMM_WORLD ({} processes)", r.world_size);
  std::string host = "127.0.0.1";
  if (!one_node()) {
    char name[HOST_NAME_MAX + 1] = {};
    BRISK_CHECK(gethostname(name, sizeof(name)) == 0, "MPI rendezvous: gethostname failed");
    host = name;
  }
  TCPStoreOptions store_options;
  store_options.timeout = options.timeout;
  store_options.connect_timeout = rendezvous_timeout(options);
  std::unique_ptr<TCPStore> hosted;
  std::string address;  // "host port token", rank 0's
  if (r.rank == 0) {
    store_options.is_master = true;
    store_options.port = 0;
    store_options.token = fresh_token();
    hosted = std::make_unique<TCPStore>(host, store_options);
    address = fmt::format("{} {} {}", host, hosted->port(), store_options.token);
  }
  address = broadcast_string(address);
  const size_t space = address.find(' '), second = address.rfind(' ');
  host = address.substr(0, space);
  ::setenv("MASTER_ADDR", host.c_str(), 0);
  if (hosted != nullptr) {
    r.store = std::move(hosted);
  } else {
    store_options.port = static_cast<uint16_t>(std::stoi(address.substr(space + 1, second - space - 1)));
    store_options.token = address.substr(second + 1);
    r.store = std::make_shared<TCPStore>(host, store_options);
  }
  return r;
}

const bool registered = register_backend_rendezvous("mpi", mpi_rendezvous);

}  // namespace
}  // namespace brisk::dist
