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
  nn::StateDict tensors;  // in the order of their data in the file
  Metadata metadata;
};

// Writes `tensors` in their order (CUDA ones copied to the host, views made contiguous)
// and `metadata` atomically (checkpoint/atomic_file.h). Every tensor must be defined; names
// must be non-empty and not "__metadata__".
void save_safetensors(const std::string& path, const nn::StateDict& tensors, const Metadata& metadata = {});

// Reads every tensor, onto the CPU, after checking the whole header against the file size
// (safetensors_header.h): a corrupt or truncated file raises brisk::Error naming the path
// and the byte offset of the problem.
Safetensors load_safetensors(const std::string& path);

}  // namespace brisk::checkpoint
