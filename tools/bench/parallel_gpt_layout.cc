#include "tools/bench/parallel_gpt_layout.h"

#include <vector>

#include "distributed/mesh/device_mesh.h"
#include "distributed/pipeline/pipeline_stage.h"
#include "distributed/pipeline/schedule_check.h"
#include "models/gpt.h"
#include "models/parallel/gpt_parallel_groups.h"
#include "models/parallel/parallel_gpt.h"
#include "optim/adam.h"
#include "tensor/error.h"
#include "tensor/memory.h"

namespace brisk::bench {

namespace pp = dist::pipeline;

LayoutRun parallel_gpt_layout(const models::GPTConfig& gpt, const Tensor& tokens, const Tensor& targets,
                              const MeshOptions& o) {
  const int world = dist::default_group()->size();
  BRISK_CHECK(o.dp * o.tp * o.pp == world, "--dp {} x --tp {} x --pp {} is {} ranks, the job has {}", o.dp, o.tp, o.pp,
              o.dp * o.tp * o.pp, world);
  const int64_t rows = tokens.size(0) / o.dp;
  BRISK_CHECK(rows * o.dp == tokens.size(0), "--batch {} does not split over --dp {}", tokens.size(0), o.dp);
  BRISK_CHECK(o.schedule != "interleaved" || o.pp > 1, "--schedule interleaved needs --pp 2 or more");
  const int chunks = o.schedule == "interleaved" ? 2 : 1;
  const int microbatches = o.pp > 1 ? o.microbatches : 1;

  dist::DeviceMesh mesh({{"pp", o.pp}, {"dp", o.dp}, {"tp", o.tp}});
  const models::GPTParallelGroups groups = models::gpt_parallel_groups(mesh);
  models::ParallelGPT model{nullptr};
  {
    models::GPT whole(gpt);  // the single layout's weights: the same draws from the same seed
    model = models::ParallelGPT(gpt, groups, chunks);
    model->load_full_state_dict(whole->state_dict());
  }
  reset_peak_memory_stats(kCPU);  // the tensors' peak without the one-process model (see the header)

  const pp::PipelineSchedule schedule =
      pp::PipelineSchedule::make(pp::parse_schedule(o.schedule), o.pp, microbatches, chunks);
  auto stage =
      std::make_shared<pp::PipelineStage>(groups.pp, model->stage_functions(), schedule, model->loss_function());
  const int64_t first_row = groups.dp->rank() * rows;
  const std::vector<Tensor> in =
      model->has_first_stage() ? std::vector<Tensor>{tokens.narrow(0, first_row, rows)} : std::vector<Tensor>{};
  const std::vector<Tensor> out =
      model->has_last_stage() ? std::vector<Tensor>{targets.narrow(0, first_row, rows)} : std::vector<Tensor>{};

  LayoutRun run;
  run.name = "mesh_dp" + std::to_string(o.dp) + "_tp" + std::to_string(o.tp) + "_pp" + std::to_string(o.pp) +
             (o.pp > 1 ? "_" + o.schedule : "");
  run.optimizer = std::make_shared<optim::AdamW>(model->parameters(), optim::AdamWOptions(1e-4));
  run.microbatches = microbatches;
  run.step = [model, stage, in, out]() mutable {  // the stage calls the model: both live as long as the step
    Tensor loss = stage->step(in, out);
    model->reduce_gradients();
    return loss;
  };
  if (o.pp > 1) {
    run.pipeline = groups.pp;
    run.bubble_formula = pp::formula_bubble(schedule);
  }
  return run;
}

}  // namespace brisk::bench
