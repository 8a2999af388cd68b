#pragma once
// Named tensors in a safetensors file, the format of Hugging Face's `safetensors` package,
// which PyTorch, JAX, NumPy and others read (layout: checkpoint/safetensors_header.h):
//
//   checkpoint::save_safetensors("model.safetensors", model->state_dict(), {{"format", "pt"}});
//   model->load_state_dict(checkpoint::load_safetensors("model.safetensors").tensors);
//
// and in Python: safetensors.torch.load_file("model.safetensors").
#include <string>

#include "checkpoint/safetensors_header.h"
#include "nn/module.h"

namespace brisk::checkpoint {

struct Safetensors {
  nn::StateDict tensors;            // in the order of their data in the file
  Metadata metadata;                // without the checksums' entry
  bool checksums_verified = false;  // the file had checksums (checkpoint/checksums.h), and they all agreed
};

// Whether save_safetensors adds checksums (checkpoint/checksums.h) to the metadata. Plain
// weight files go without, byte for byte what any safetensors writer makes; checkpoints
// have them.
enum class Checksums { kOmit, kWrite };

// Writes `tensors` in their order (CUDA ones copied to the host, views made contiguous)
// and `metadata` atomically (checkpoint/atomic_file.h). Every tensor must be defined; names
// must be non-empty and not "__metadata__"; the metadata must not have "brisk.checksums".
void save_safetensors(const std::string& path, const nn::StateDict& tensors, const Metadata& metadata = {},
                      Checksums checksums = Checksums::kOmit);

// Reads every tensor, onto the CPU, after checking the whole header against the file size
// (safetensors_header.h), and, when the file has checksums, the header and every tensor
// against them: a corrupt or truncated file raises brisk::Error naming the path, the tensor or
// metadata entry, and the byte offset of the problem.
Safetensors load_safetensors(const std::string& path);

}  // namespace brisk::checkpoint
