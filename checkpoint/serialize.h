#pragma once
// brisk::save / brisk::load: libtorch's torch::save / torch::load, with its argument order,
// for a module, a tensor, a list of tensors and an optimizer:
//
//   brisk::save(model, "model.st");          // its state_dict: parameters and buffers
//   brisk::load(model, "model.st");          // into a model built the same way
//   brisk::save(optimizer, "optimizer.st");  // its state_dict: options and per-parameter state
//   brisk::load(optimizer, "optimizer.st");  // training then continues bitwise as if never stopped
//   brisk::save(tensor, "x.st");  brisk::load(tensor, "x.st");  // also std::vector<Tensor>
//
// The files are Brisk's: safetensors files (checkpoint/safetensors.h) with checksums, written
// atomically (checkpoint/atomic_file.h), whatever the path's extension; not libtorch's .pt zip
// archives, which neither reads the other's. Each file records what it holds, so that loading
// it into something else is an error; loaded tensors are on the CPU (a module's and an
// optimizer's are copied to where theirs live). Errors name the file, and the key and shapes
// that differ. For a whole training run (model, optimizer, scheduler, progress, generator)
// see checkpoint/checkpoint.h.
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "nn/module.h"
#include "nn/module_holder.h"
#include "optim/optimizer.h"
#include "tensor/tensor.h"

namespace brisk {

void save(const nn::Module& module, const std::string& path);
// Loads with load_state_dict(strict): the file must have every tensor of the module, of the
// same shape, and no other.
void load(nn::Module& module, const std::string& path);

void save(const Tensor& tensor, const std::string& path);
// Replaces `tensor` with the one saved (a new CPU tensor, not requiring grad).
void load(Tensor& tensor, const std::string& path);

void save(const std::vector<Tensor>& tensors, const std::string& path);
// Replaces the contents of `tensors` with those saved.
void load(std::vector<Tensor>& tensors, const std::string& path);

void save(const optim::Optimizer& optimizer, const std::string& path);
// The file must come from an optimizer of the same kind with groups of the same sizes and
// state of its parameters' shapes (optim::Optimizer::load_state_dict).
void load(optim::Optimizer& optimizer, const std::string& path);

// A module through its holder (nn::Linear, a BRISK_MODULE) or a std::shared_ptr.
template <typename Contained>
void save(const nn::ModuleHolder<Contained>& module, const std::string& path) {
  save(static_cast<const nn::Module&>(*module), path);
}
template <typename Contained>
void load(const nn::ModuleHolder<Contained>& module, const std::string& path) {
  load(static_cast<nn::Module&>(*module), path);
}
template <typename M, typename = std::enable_if_t<std::is_base_of_v<nn::Module, M>>>
void save(const std::shared_ptr<M>& module, const std::string& path) {
  save(static_cast<const nn::Module&>(*module), path);
}
template <typename M, typename = std::enable_if_t<std::is_base_of_v<nn::Module, M>>>
void load(const std::shared_ptr<M>& module, const std::string& path) {
  load(static_cast<nn::Module&>(*module), path);
}

}  // namespace brisk
