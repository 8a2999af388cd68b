#include "distributed/mesh/device_mesh.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tensor/error.h"

namespace brisk::dist {

namespace {

std::string dims_text(const std::vector<DeviceMesh::Dim>& dims) {
  std::vector<std::string> parts;
  for (const auto& [name, size] : dims) parts.push_back(fmt::format("{}={}", name, size));
  return fmt::format("{}", fmt::join(parts, ", "));
}

void check_dims(const std::vector<DeviceMesh::Dim>& dims, int rank, int world_size) {
  BRISK_CHECK(!dims.empty(), "DeviceMesh: no dimensions (give at least one, e.g. {{\"dp\", {}}})", world_size);
  std::set<std::string> seen;
  int64_t product = 1;
  for (const auto& [name, size] : dims) {
    BRISK_CHECK(!name.empty(), "DeviceMesh({}): a dimension has an empty name", dims_text(dims));
    BRISK_CHECK(seen.insert(name).second, "DeviceMesh({}): the dimension name '{}' appears twice", dims_text(dims),
                name);
    BRISK_CHECK(size >= 1, "DeviceMesh({}): dimension '{}' has size {} (must be at least 1)", dims_text(dims), name,
                size);
    product *= size;
  }
  BRISK_CHECK(product == world_size, "DeviceMesh({}): the product of the sizes is {} but the world size is {}",
              dims_text(dims), product, world_size);
  BRISK_CHECK(rank >= 0 && rank < world_size, "DeviceMesh({}): rank {} is outside the world of {} ranks",
              dims_text(dims), rank, world_size);
}

// The mesh's groups take the default group's device unless the options name one (new_group
// alone would put a Gloo group on the CPU).
ProcessGroupOptions on_default_device(ProcessGroupOptions options) {
  if (!options.device) options.device = default_group()->device();
  return options;
}

}  // namespace

DeviceMesh::DeviceMesh(std::vector<Dim> dims, ProcessGroupOptions options)
    : DeviceMesh(
          std::move(dims), get_rank(), get_world_size(),
          [options = on_default_device(options)](const std::vector<int>& ranks) { return new_group(ranks, options); }) {
}

DeviceMesh::DeviceMesh(std::vector<Dim> dims, int rank, int world_size, const GroupFactory& factory)
    : dims_(std::move(dims)), rank_(rank), world_size_(world_size) {
  check_dims(dims_, rank_, world_size_);
  // Row-major: the stride of a dimension is the product of the sizes after it.
  std::vector<int> strides(dims_.size(), 1);
  for (size_t d = dims_.size() - 1; d > 0; --d) strides[d - 1] = strides[d] * dims_[d].second;
  for (size_t d = 0; d < dims_.size(); ++d) coordinate_.push_back(rank_ / strides[d] % dims_[d].second);

  groups_.resize(dims_.size());
  for (size_t d = 0; d < dims_.size(); ++d) {
    // Every line along d starts at a rank whose coordinate d is 0; visit them in rank order.
    for (int first = 0; first < world_size_; ++first) {
      if (first / strides[d] % dims_[d].second != 0) continue;
      std::vector<int> ranks;
      for (int k = 0; k < dims_[d].second; ++k) ranks.push_back(first + k * strides[d]);
      GroupPtr group = factory(ranks);
      const bool member = std::find(ranks.begin(), ranks.end(), rank_) != ranks.end();
      if (!member) continue;
      BRISK_CHECK(group != nullptr, "DeviceMesh({}): no group was made for ranks [{}] along '{}' on rank {}",
                  dims_text(dims_), fmt::join(ranks, ", "), dims_[d].first, rank_);
      BRISK_CHECK(group->size() == dims_[d].second && group->rank() == coordinate_[d],
                  "DeviceMesh({}): the group made for ranks [{}] along '{}' has rank {} of {}; rank {} expected "
                  "rank {} of {}",
                  dims_text(dims_), fmt::join(ranks, ", "), dims_[d].first, group->rank(), group->size(), rank_,
                  coordinate_[d], dims_[d].second);
      groups_[d] = std::move(group);
    }
  }
}

std::vector<std::string> DeviceMesh::dim_names() const {
  std::vector<std::string> names;
  for (const auto& dim : dims_) names.push_back(dim.first);
  return names;
}

size_t DeviceMesh::index_of(const std::string& dim) const {
  for (size_t d = 0; d < dims_.size(); ++d)
    if (dims_[d].first == dim) return d;
  throw Error(fmt::format("DeviceMesh: no dimension '{}'; the mesh has {}", dim, fmt::join(dim_names(), ", ")));
}

int DeviceMesh::rank_at(const std::vector<int>& coordinate) const {
  BRISK_CHECK(coordinate.size() == dims_.size(), "{}: a coordinate of {} entries for {} dimensions", describe(),
              coordinate.size(), dims_.size());
  int rank = 0;
  for (size_t d = 0; d < dims_.size(); ++d) {
    BRISK_CHECK(coordinate[d] >= 0 && coordinate[d] < dims_[d].second, "{}: coordinate {} of dimension '{}' (size {})",
                describe(), coordinate[d], dims_[d].first, dims_[d].second);
    rank = rank * dims_[d].second + coordinate[d];
  }
  return rank;
}

std::vector<int> DeviceMesh::ranks_along(const std::string& dim) const {
  const size_t d = index_of(dim);
  std::vector<int> coordinate = coordinate_;
  std::vector<int> ranks;
  for (int k = 0; k < dims_[d].second; ++k) {
    coordinate[d] = k;
    ranks.push_back(rank_at(coordinate));
  }
  return ranks;
}

std::string DeviceMesh::describe() const {
  return fmt::format("DeviceMesh({}), rank {} at ({})", dims_text(dims_), rank_, fmt::join(coordinate_, ", "));
}

}  // namespace brisk::dist
