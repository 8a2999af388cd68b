#pragma once
// The backward pass: runs the nodes of a graph in dependency order, summing the gradients
// that meet at a node, and delivers them to leaves (.grad) or to the caller (grad()).
#include <functional>
#include <optional>
#include <vector>

#include "autograd/node.h"

namespace brisk::autograd {

class Engine {
 public:
  // Runs backward from `roots` (edges into the graph) with `root_grads` (one defined gradient
  // per root, already checked against the root's shape). A node runs once all gradients
  // for it have arrived; among ready nodes, the most recently recorded runs first.
  //
  // With `capture` empty, every reachable node runs and leaves accumulate into .grad.
  // Otherwise only the part of the graph leading to the captured edges runs, nothing is
  // accumulated, and the result holds the gradient arriving at each captured edge
  // (undefined where none arrives).
  //
  // `keep_graph` false frees each node's saved tensors after it runs; `create_graph` runs the
  // backward closures with grad mode on so the gradients have a history.
  static TensorList execute(const std::vector<Edge>& roots, const TensorList& root_grads, bool keep_graph,
                            bool create_graph, const std::vector<Edge>& capture = {});

  // Runs `fn` once the current backward pass has finished (DistributedDataParallel waits for
  // its all-reduces this way). Only valid during a backward pass, e.g. from a hook.
  static void queue_callback(std::function<void()> fn);
};

// loss.backward() for several roots. `grad_tensors` may be empty (every root must then have
// one element) or give one gradient per root, undefined for a one-element root.
// `retain_graph` defaults to `create_graph`.
void backward(const TensorList& tensors, const TensorList& grad_tensors = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false);

// The gradients of `outputs` with respect to `inputs`, without touching any .grad.
// An input that no output depends on is an error unless `allow_unused` (then its gradient
// is undefined).
TensorList grad(const TensorList& outputs, const TensorList& inputs, const TensorList& grad_outputs = {},
                std::optional<bool> retain_graph = std::nullopt, bool create_graph = false, bool allow_unused = false);

}  // namespace brisk::autograd
