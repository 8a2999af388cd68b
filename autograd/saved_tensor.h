#pragma once
// A tensor kept by a node for its backward, with the version it had when saved.
//
// Unpacking checks the version: a tensor modified in place after it was saved would give a
// wrong gradient, so that is an error, as in PyTorch, naming the node that saved the tensor
// and the op that produced it. A node's own output is saved as an
// alias without autograd state (the output refers to the node, so keeping the output itself
// would make a reference cycle) and gets the node back as its grad_fn when unpacked.
//
// Under saved-tensor hooks (autograd/saved_tensors_hooks.h) the hooks keep it instead, and its
// version is not checked.
#include <any>
#include <cstdint>
#include <memory>
#include <string>

#include "tensor/tensor.h"

namespace brisk::autograd {

class Node;
struct SavedTensorsHookPair;

class SavedTensor {
 public:
  SavedTensor() = default;
  // `output_nr` is meaningful when `is_output`: which output of the saving node it is.
  SavedTensor(const Tensor& t, bool is_output, uint32_t output_nr = 0);

  // The saved tensor; `saved_for` is the node that saved it (the grad_fn of a saved output).
  Tensor unpack(const std::shared_ptr<Node>& saved_for) const;
  // Frees the data; a later unpack throws the "backward through the graph a second time" error.
  void release();

 private:
  // "which is output 0 of MulBackward", "a leaf", ...: what made the tensor.
  std::string describe_producer(const std::shared_ptr<Node>& saved_for) const;

  Tensor data_;
  // Under hooks: what pack returned, and the hooks that unpack it.
  std::any packed_;
  std::shared_ptr<const SavedTensorsHookPair> hooks_;
  // What produced the tensor, for the version error: its grad_fn when saved (not kept alive
  // by the saved tensor) and which output of it the tensor was; none for a leaf or a tensor
  // that does not require grad.
  std::weak_ptr<Node> producer_;
  uint32_t producer_output_nr_ = 0;
  bool requires_grad_ = false;
  bool is_leaf_ = false;
  uint32_t saved_version_ = 0;
  uint32_t output_nr_ = 0;
  bool is_output_ = false;
  bool was_defined_ = false;
  bool released_ = false;
};

}  // namespace brisk::autograd
