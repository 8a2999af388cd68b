#pragma once
// The process groups a GPT trained on a (dp, tp, pp) device mesh uses: the mesh's three, and
// the tied embedding's group (Megatron-LM's embedding group): for each (dp, tp) coordinate, the
// ranks of its first and last pipeline stage, which both hold the token embedding (the first
// to embed, the last as the output head) and sum its gradient.
//
//   dist::DeviceMesh mesh({{"pp", 2}, {"dp", 2}, {"tp", 2}});   // 8 ranks, tp fastest
//   models::GPTParallelGroups groups = models::gpt_parallel_groups(mesh);   // collective
//   models::ParallelGPT model(config, groups);                              // parallel_gpt.h
//
// The mesh needs dimensions named "dp", "tp" and "pp" (any order, any sizes, 1 included).
// The embedding groups are created once, on every rank, in the row-major order of the other
// coordinates (dist::new_group's contract); there are none when pp is 1 (the first stage is
// the last).
#include "distributed/distributed.h"
#include "distributed/mesh/device_mesh.h"

namespace brisk::models {

struct GPTParallelGroups {
  dist::GroupPtr dp, tp, pp;
  // This rank's embedding group ({first, last} stage ranks of its (dp, tp) coordinate); null
  // when pp is 1 or this rank is a middle stage.
  dist::GroupPtr embedding;
};

// Collective: every rank of the mesh calls it, once. The embedding groups come from
// dist::new_group with `options` (unset device: the default group's).
GPTParallelGroups gpt_parallel_groups(const dist::DeviceMesh& mesh, dist::ProcessGroupOptions options = {});
// The same with the embedding groups from `factory` (tests' in-memory groups).
GPTParallelGroups gpt_parallel_groups(const dist::DeviceMesh& mesh, const dist::DeviceMesh::GroupFactory& factory);

}  // namespace brisk::models
