#include "models/parallel/gpt_parallel_groups.h"

#include <algorithm>
#include <string>
#include <vector>

#include "tensor/error.h"

namespace brisk::models {

GPTParallelGroups gpt_parallel_groups(const dist::DeviceMesh& mesh, dist::ProcessGroupOptions options) {
  return gpt_parallel_groups(mesh, [&](const std::vector<int>& ranks) { return dist::new_group(ranks, options); });
}

GPTParallelGroups gpt_parallel_groups(const dist::DeviceMesh& mesh, const dist::DeviceMesh::GroupFactory& factory) {
  const std::vector<std::string> names = mesh.dim_names();
  for (const char* name : {"dp", "tp", "pp"}) {
    BRISK_CHECK(std::find(names.begin(), names.end(), name) != names.end(),
                "gpt_parallel_groups: {} has no dimension '{}' (it needs dp, tp and pp)", mesh.describe(), name);
  }
  GPTParallelGroups groups{mesh.group("dp"), mesh.group("tp"), mesh.group("pp"), nullptr};
  const int pp_size = mesh.size("pp");
  if (pp_size == 1) return groups;
  // Every coordinate with pp = 0, in row-major order (built dimension by dimension).
  std::vector<std::vector<int>> coordinates(1);  // one empty prefix
  for (const std::string& name : names) {
    std::vector<std::vector<int>> longer;
    for (const std::vector<int>& prefix : coordinates) {
      for (int k = 0; k < (name == "pp" ? 1 : mesh.size(name)); ++k) {
        longer.push_back(prefix);
        longer.back().push_back(k);
      }
    }
    coordinates = std::move(longer);
  }
  const size_t pp_dim = static_cast<size_t>(std::find(names.begin(), names.end(), "pp") - names.begin());
  for (const std::vector<int>& first : coordinates) {
    std::vector<int> last = first;
    last[pp_dim] = pp_size - 1;
    dist::GroupPtr group = factory({mesh.rank_at(first), mesh.rank_at(last)});
    if (group) groups.embedding = std::move(group);
  }
  return groups;
}

}  // namespace brisk::models
