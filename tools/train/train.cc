// train: trains a reference model on MNIST-format data (LeNet-5 or an MLP; Fashion-MNIST by
// default), on CIFAR-10 (the MLP, and the CIFAR models of models/), or GPT on the bytes of a
// text (--model gpt: tools/train/language_model_training.h) with SGD (momentum,
// Nesterov, weight decay) or AdamW, a per-step cosine, one-cycle or constant schedule with
// optional warm-up, label smoothing, gradient clipping and accumulation; evaluates test
// accuracy after every epoch, writes per-epoch metrics to a CSV file and an SVG chart of them
// (with --tensorboard, TensorBoard event files too) and, with --save, a checkpoint that --resume continues from exactly
// (docs/training.md).
//
//   bazel run -c opt //tools/train:train -- --model lenet --epochs 2 --save lenet.safetensors
//   bazel run -c opt //tools/train:train -- --dataset cifar10 --data-dir data/cifar10 --model mlp
//
// Started by the launcher with several processes (tools/launch --nproc-per-node 2 train
// ...), it trains data-parallel: DistributedDataParallel over Gloo (on any device: the CPU, GPUs,
// the simulated device) or NCCL (one GPU per process), each rank on its DistributedSampler share
// with --batch-size / world size examples a step; the logged and saved metrics are sums over the
// ranks, and only rank 0 logs and writes files (dist::init_distributed, train/distributed_run.h, docs/training.md
// "Distributed").
//
// One training step, from here down to the ops: run_training (tools/train/run_training.cc) ->
// train_epoch -> train_step (train/train_loop.cc): LeNet5Impl::forward (models/lenet.cc: conv2d,
// relu, max_pool2d, linear), cross_entropy (nn/functional/loss.cc), backward (autograd/engine.cc),
// clip_grad_norm_ (optim/clip_grad.cc), SGD::step (optim/sgd.cc), then the scheduler's step.
#include "tools/train/run_training.h"

int main(int argc, char** argv) { return brisk::train::run_training(argc, argv); }
