#pragma once
// models::parallel_gpt_loss: a ParallelGPT's mean loss on a batch without training, the stages
// run one after another (no microbatches, no backward): each rank computes its stages in order,
// receiving a stage's input from the rank before it and sending its output to the rank after
// it over the pp group, and the last stage's loss is shared with every rank of the pp group.
//
//   NoGradGuard no_grad;
//   double loss = models::parallel_gpt_loss(*model, inputs, targets);   // on every rank of the pp group
//
// Held-out evaluation on a layout: each dp rank takes its share of the batches and the sums are
// all-reduced over dp (the training program does so). Collective over the model's tp and pp
// groups: every rank of them calls it with the same batch (inputs read on the first stage,
// targets on the last); its messages use their own tag, apart from a PipelineStage's.
#include "models/parallel/parallel_gpt.h"
#include "tensor/tensor.h"

namespace brisk::models {

// inputs, targets: int64 [B, T]; returns the mean cross-entropy in nats per token.
double parallel_gpt_loss(ParallelGPTImpl& model, const Tensor& inputs, const Tensor& targets);

}  // namespace brisk::models
