#pragma once
// models::ParallelGPT: this rank's part of the GPT (models/gpt.h) on a (dp, tp, pp) layout.
// Of the pipeline's stages (StageLayout: pp ranks, `chunks` stages each), it holds the rank's,
// each a consecutive run of blocks (n_layer over the stages, the first ones one longer when
// they do not divide); the first stage also the embeddings, the last also ln_f and the output
// head. Within a stage the layers are split over the tp group (parallel_gpt_block.h): the token
// embedding is a VocabParallelEmbedding and the tied head multiplies by this rank's rows of it,
// so the loss is tp::vocab_parallel_cross_entropy of logits that are never gathered.
//
//   models::ParallelGPT model(config, groups, /*chunks=*/1);    // groups: gpt_parallel_groups.h
//   model->load_full_state_dict(full_gpt->state_dict());        // this rank's parts
//   PipelineStage stage(groups.pp, model->stage_functions(), schedule, model->loss_function());
//   stage.step({tokens}, {targets});   // this dp rank's rows: tokens on the first stage, targets on the last
//   model->reduce_gradients();         // the tied embedding over its group, then the mean over dp
//   optimizer.step();
//
// Names: every parameter has the key the unsplit GPT gives it (blocks keep their global index:
// the rank holding blocks 2 and 3 has "blocks.2..." and "blocks.3..."), so a full state dict
// loads by key and full_state_dict() returns this rank's keys whole. The token embedding lives
// on the first and on the last stage ("wte.weight" on both): its gradient is summed over the
// embedding group and, both copies taking the same optimizer steps from the same values, they
// stay equal. Initialization: load a models::GPT's state (every rank built from one seed), so
// that every layout starts from the one-process model.
//
// Data parallelism: the pipeline runs several backwards per step (one per microbatch), so the
// gradients are averaged over dp once, after the last one (reduce_gradients), rather than by
// DDP's hooks during each backward (which would need no_sync on all but the last microbatch and
// still reduce during the last one's backward, interleaved with the pipeline's messages).
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "distributed/pipeline/action.h"
#include "distributed/pipeline/pipeline_stage.h"
#include "distributed/tensor_parallel/vocab_parallel_embedding.h"
#include "models/gpt_config.h"
#include "models/parallel/gpt_parallel_groups.h"
#include "models/parallel/parallel_gpt_block.h"
#include "nn/module.h"
#include "nn/module_holder.h"
#include "nn/modules/embedding.h"
#include "nn/modules/normalization.h"

namespace brisk::models {

// The blocks [first, first + count) of stage `stage` of `stages`.
struct BlockRange {
  int64_t first = 0, count = 0;
};
BlockRange stage_blocks(int64_t n_layer, int stages, int stage);

class ParallelGPTImpl : public nn::Module {
 public:
  // chunks: stages per pipeline rank (2 or more for the interleaved schedule).
  ParallelGPTImpl(const GPTConfig& config, GPTParallelGroups groups, int chunks = 1);

  // For PipelineStage (they call this model: keep it alive as long as the stage): the function
  // of each of this rank's stages, in chunk order. The first
  // stage takes int64 tokens [b, T]; the last returns this rank's logits [b, T, vocab_r].
  std::vector<dist::pipeline::StageFunction> stage_functions();
  // The mean cross-entropy of the last stage's logits (vocab_parallel_cross_entropy).
  dist::pipeline::LossFunction loss_function() const;

  // After the pipeline's backward of every microbatch: the tied embedding's gradient summed
  // over the embedding group, then every gradient averaged over dp. Collective over those
  // groups (every rank calls it, after the same step).
  void reduce_gradients();
  // After reduce_gradients: clip_grad_norm_ (optim/clip_grad.h, the 2-norm) of the whole
  // model's gradients: each split parameter's part counted on its rank, a replicated one on tp
  // rank 0 only, the tied embedding once (on the first stage); the sum of squares all-reduced
  // over tp and pp. Returns the total norm before clipping (the same on every rank).
  // Collective over the tp and pp groups.
  double clip_grad_norm_(double max_norm);

  // Takes this rank's parts of the unsplit GPT's state (its keys; others are ignored). Local.
  void load_full_state_dict(const nn::StateDict& full);
  // This rank's keys, each whole (tp::full_state_dict). Collective over the tp group.
  nn::StateDict full_state_dict();

  bool has_first_stage() const { return groups.pp->rank() == layout.rank_of(0); }
  bool has_last_stage() const { return groups.pp->rank() == layout.rank_of(layout.stages() - 1); }

  GPTConfig config;
  GPTParallelGroups groups;
  dist::pipeline::StageLayout layout;
  dist::tp::VocabParallelEmbedding wte{nullptr};  // first and last stage: this rank's vocabulary rows
  nn::Embedding wpe{nullptr};                     // first stage
  std::shared_ptr<nn::Module> blocks;             // this rank's ParallelGPTBlocks, named by global index
  nn::LayerNorm ln_f{nullptr};                    // last stage

 private:
  std::vector<Tensor> run_stage(int stage, const std::vector<Tensor>& inputs);

  std::map<int64_t, ParallelGPTBlock> block_at_;  // blocks' children by global index
};

BRISK_MODULE(ParallelGPT);

}  // namespace brisk::models
