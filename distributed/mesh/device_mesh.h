#pragma once
// dist::DeviceMesh: the world's ranks laid out as an n-dimensional array with named dimensions,
// and one process group per line of ranks along each dimension, as torch's init_device_mesh.
//
//   dist::init_process_group("gloo");                               // 8 ranks
//   dist::DeviceMesh mesh({{"dp", 2}, {"pp", 2}, {"tp", 2}});        // collective: every rank
//   auto tp = mesh.group("tp");           // this rank's tensor-parallel group (2 ranks)
//   DistributedDataParallel ddp(model, mesh.group("dp"));
//
// Ranks are laid out row-major: the last dimension varies fastest, so rank 5 of the mesh above
// sits at (dp 1, pp 0, tp 1) and its "tp" group is {4, 5}, its "pp" group {5, 7}, its "dp" group
// {1, 5}. The constructor creates every dimension's groups once, in the order of the dimensions
// and, within one, of their lowest rank, and every rank creates all of them (dist::new_group's
// contract: ranks call it for groups they are not in too), on the default group's backend and
// device (ProcessGroupOptions::device overrides it).
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "distributed/distributed.h"

namespace brisk::dist {

class DeviceMesh {
 public:
  // A named dimension and its size.
  using Dim = std::pair<std::string, int>;
  // Makes the group of `ranks` (global ranks, ascending); returns nullptr when this rank is not
  // among them. Called for every group of the mesh on every rank, in the same order.
  using GroupFactory = std::function<GroupPtr(const std::vector<int>& ranks)>;

  // Over the default group's world, with dist::new_group(ranks, options) for each group;
  // options.device unset: the default group's device.
  explicit DeviceMesh(std::vector<Dim> dims, ProcessGroupOptions options = {});
  // Over a world of `world_size` ranks in which this process is `rank`, with groups from
  // `factory` (tests build in-memory groups this way, without init_process_group).
  DeviceMesh(std::vector<Dim> dims, int rank, int world_size, const GroupFactory& factory);

  int rank() const { return rank_; }
  int world_size() const { return world_size_; }
  int ndim() const { return static_cast<int>(dims_.size()); }
  // The dimensions' names, in order.
  std::vector<std::string> dim_names() const;

  // This rank's group along `dim`: the ranks that share every other coordinate with it.
  const GroupPtr& group(const std::string& dim) const { return groups_[index_of(dim)]; }
  int size(const std::string& dim) const { return dims_[index_of(dim)].second; }
  // This rank's coordinate along `dim`, which is also its rank in group(dim).
  int local_rank(const std::string& dim) const { return coordinate_[index_of(dim)]; }
  // This rank's coordinate along every dimension, in order.
  const std::vector<int>& coordinate() const { return coordinate_; }
  // The global ranks of group(dim), ascending (their local ranks in order).
  std::vector<int> ranks_along(const std::string& dim) const;
  // The global rank at `coordinate` (one entry per dimension, in order).
  int rank_at(const std::vector<int>& coordinate) const;

  // "DeviceMesh(dp=2, pp=2, tp=2), rank 5 at (1, 0, 1)".
  std::string describe() const;

 private:
  // Throws naming `dim` and the known dimensions when it is not one of them.
  size_t index_of(const std::string& dim) const;

  std::vector<Dim> dims_;
  int rank_;
  int world_size_;
  std::vector<int> coordinate_;
  std::vector<GroupPtr> groups_;  // one per dimension
};

}  // namespace brisk::dist
