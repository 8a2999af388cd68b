// consolidate: turns a sharded checkpoint (checkpoint/sharded/) into one ordinary safetensors
// file, whole tensors under their names:
//
//   consolidate ckpt/step-100 model.safetensors                 # the model's tensors
//   consolidate ckpt/step-100 run.safetensors --checkpoint      # the whole run, Brisk's format
//
// The first is a plain safetensors file ({"format": "pt"}, no checksums), what PyTorch's
// safetensors.torch.load_file reads (tools/checkpoint/load_with_torch.py); the second is what
// checkpoint::save_checkpoint writes (load_checkpoint, train --resume). docs/training.md,
// "Sharded checkpoints".
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <string>

#include "checkpoint/checkpoint.h"
#include "checkpoint/checkpoint_layout.h"
#include "checkpoint/safetensors.h"
#include "checkpoint/sharded/sharded_checkpoint.h"
#include "checkpoint/sharded/sharded_reader.h"
#include "tensor/error.h"

int main(int argc, char** argv) {
  using namespace brisk;
  CLI::App app("Turns a sharded checkpoint into one safetensors file");
  std::string directory, output;
  bool whole_run = false;
  app.add_option("directory", directory, "the sharded checkpoint: the directory of index.json")->required();
  app.add_option("output", output, "the safetensors file to write")->required();
  app.add_flag("--checkpoint", whole_run,
               "write the whole training run (model, optimizer, scheduler, progress) in Brisk's checkpoint format; "
               "without it, the model's tensors only");
  CLI11_PARSE(app, argc, argv);
  try {
    if (whole_run) {
      checkpoint::save_checkpoint(output, checkpoint::load_sharded_checkpoint(directory));
      fmt::print("{}: the training run of {} in Brisk's checkpoint format\n", output, directory);
      return 0;
    }
    checkpoint::ShardedReader reader(directory);
    nn::StateDict tensors;
    for (const checkpoint::IndexEntry& entry : reader.index().entries) {
      if (entry.name.rfind(checkpoint::kOptimizerPrefix, 0) == 0) continue;
      tensors.insert(entry.name, reader.read(entry.name));
    }
    checkpoint::save_safetensors(output, tensors, {{"format", "pt"}});
    fmt::print("{}: {} tensors of {} (saved by {} ranks)\n", output, tensors.size(), directory,
               reader.index().world_size);
    return 0;
  } catch (const Error& e) {
    fmt::print(stderr, "consolidate: {}\n", e.what());
    return 1;
  }
}
