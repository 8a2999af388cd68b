#pragma once
// The backward pass: runs the nodes of a graph in dependency order, summing the gradients
// that meet at a node, and delivers them to leaves (.grad) or to the caller (grad()).
#include <functional>
#include <optional>
#include <vector>

#include "autograd/node.h"

namespace brisk::autograd {

// A node that ran in a capturing pass without computing the gradients of some of its valid next
// edges (the pass does not visit their nodes: they lead to the parameters, not to the captured
// edges). It keeps its saved tensors until those gradients are computed (split_backward.h).
struct SkippedGradients {
  std::shared_ptr<Node> node;
  TensorList grads;         // the gradients it received, after its hooks
  std::vector<bool> edges;  // per next edge: skipped
};

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
  //
  // A running node computes only the gradients the pass wants (wants_gradient). With `skipped`
  // given (and `capture` not empty), each node that ran and skipped valid edges is appended to it
  // and keeps its saved tensors; when the roots lead to no captured edge, the roots themselves
  // are appended (as a node that skipped every root edge).
  static TensorList execute(const std::vector<Edge>& roots, const TensorList& root_grads, bool keep_graph,
                            bool create_graph, const std::vector<Edge>& capture = {},
                            std::vector<SkippedGradients>* skipped = nullptr);

  // Applies `node` to `grads` (its input gradients, after its hooks) as a backward pass does,
  // wanting the gradients of the next edges marked in `wanted` only, and checks what it returns
  // (validate_grads; anomaly mode). Call it with grad mode and autocast as execute sets them.
  static TensorList apply_node(Node& node, TensorList grads, const std::vector<bool>& wanted);

  // The one rule for which gradients a node computes: while `node` is being applied on this
  // thread, whether the pass wants the gradient of its next edge `i` (valid, and its node is
  // visited: a capturing pass wants only the paths to the captured edges); outside, whether the
  // edge is valid. ClosureNode sets BackwardArgs::needs_grad from it; other nodes may compute
  // every gradient (the unwanted ones are dropped).
  static bool wants_gradient(const Node& node, size_t i);

  // Runs `fn` once the current backward pass has finished (DistributedDataParallel waits for
  // its all-reduces this way). Only valid during a backward pass, e.g. from a hook.
  static void queue_callback(std::function<void()> fn);
};

// The root edges of a backward pass and their gradients, from `tensors` and `grad_tensors` as
// backward() takes them; `op` names the caller in errors.
struct GraphRoots {
  std::vector<Edge> edges;
  TensorList grads;
};
GraphRoots make_roots(const char* op, const TensorList& tensors, const TensorList& grad_tensors);

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
