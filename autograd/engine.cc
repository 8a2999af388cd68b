#include "autograd/engine.h"

#include <algorithm>
#include <limits>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "autograd/accumulate_grad.h"
#include "autograd/anomaly_mode.h"
#include "autograd/autocast.h"
#include "autograd/grad_mode.h"
#include "profiler/record.h"

namespace brisk::autograd {

namespace {

// Hands the root gradients to the roots, so the roots' own hooks and shape checks run as
// for any other gradient.
class GraphRoot final : public Node {
 public:
  GraphRoot(const std::vector<Edge>& roots, TensorList grads)
      : Node(std::numeric_limits<uint64_t>::max()), grads_(std::move(grads)) {
    set_next_edges(roots);
  }
  std::string name() const override { return "GraphRoot"; }
  TensorList apply(TensorList&&) override { return grads_; }

 private:
  TensorList grads_;
};

struct GraphTask {
  bool keep_graph = false;
  bool create_graph = false;
  // Gradients still to arrive, and those already summed, per node.
  std::unordered_map<Node*, int> dependencies;
  std::unordered_map<Node*, TensorList> buffers;
  // For grad(): which nodes run, which are visited only to capture a gradient.
  bool capturing = false;
  std::unordered_set<Node*> executes;
  std::unordered_set<Node*> active;
  std::unordered_map<Node*, std::vector<std::pair<uint32_t, size_t>>> captures;
  TensorList captured;
  std::vector<std::function<void()>> callbacks;

  // For split_backward: where the nodes that skipped edges go.
  std::vector<SkippedGradients>* skipped = nullptr;

  bool runs(Node* node) const { return !capturing || executes.count(node) != 0; }
  bool visits(Node* node) const { return !capturing || active.count(node) != 0; }
  bool wants(const Edge& edge) const { return edge.valid() && visits(edge.node.get()); }
};

thread_local GraphTask* current_task = nullptr;

// The node being applied on this thread and the gradients wanted of it (Engine::wants_gradient).
thread_local const Node* applying_node = nullptr;
thread_local const std::vector<bool>* applying_wanted = nullptr;

class ApplyingGuard {
 public:
  ApplyingGuard(const Node& node, const std::vector<bool>& wanted) : node_(applying_node), wanted_(applying_wanted) {
    applying_node = &node;
    applying_wanted = &wanted;
  }
  ~ApplyingGuard() {
    applying_node = node_;
    applying_wanted = wanted_;
  }

 private:
  const Node* node_;
  const std::vector<bool>* wanted_;
};

class CurrentTaskGuard {
 public:
  explicit CurrentTaskGuard(GraphTask* task) : previous_(current_task) { current_task = task; }
  ~CurrentTaskGuard() { current_task = previous_; }

 private:
  GraphTask* previous_;
};

// Post-order walk from the root marking the nodes that lead to a captured edge: those run;
// captured nodes that lead nowhere further are only visited.
void mark_needed(Node* root, GraphTask& task) {
  std::unordered_set<Node*> seen{root};
  std::vector<std::pair<Node*, size_t>> stack{{root, 0}};
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    if (next < node->num_outputs()) {
      Node* child = node->next_edge(next++).node.get();
      if (child != nullptr && seen.insert(child).second) stack.emplace_back(child, 0);
      continue;
    }
    for (const Edge& edge : node->next_edges()) {
      if (edge.valid() && task.active.count(edge.node.get())) {
        task.executes.insert(node);
        break;
      }
    }
    if (task.executes.count(node) || task.captures.count(node)) task.active.insert(node);
    stack.pop_back();
  }
}

void count_dependencies(Node* root, GraphTask& task) {
  std::unordered_set<Node*> seen{root};
  std::vector<Node*> stack{root};
  while (!stack.empty()) {
    Node* node = stack.back();
    stack.pop_back();
    if (!task.runs(node)) continue;
    for (const Edge& edge : node->next_edges()) {
      Node* child = edge.node.get();
      if (child == nullptr || !task.visits(child)) continue;
      ++task.dependencies[child];
      if (seen.insert(child).second) stack.push_back(child);
    }
  }
}

struct LaterFirst {
  bool operator()(const std::shared_ptr<Node>& a, const std::shared_ptr<Node>& b) const {
    return a->sequence_nr() < b->sequence_nr();
  }
};

void run_node(GraphTask& task, const std::shared_ptr<Node>& node,
              std::priority_queue<std::shared_ptr<Node>, std::vector<std::shared_ptr<Node>>, LaterFirst>& ready) {
  TensorList inputs;
  auto buffer = task.buffers.find(node.get());
  if (buffer != task.buffers.end()) {
    inputs = std::move(buffer->second);
    task.buffers.erase(buffer);
  } else {
    inputs.resize(node->num_inputs());
  }
  for (uint32_t slot = 0; slot < inputs.size(); ++slot) {
    if (inputs[slot].defined()) inputs[slot] = node->call_pre_hooks(slot, std::move(inputs[slot]));
  }
  if (task.capturing) {
    auto it = task.captures.find(node.get());
    if (it != task.captures.end()) {
      for (auto [slot, index] : it->second) task.captured[index] = inputs[slot];
    }
  }
  if (!task.runs(node.get())) return;

  std::vector<bool> wanted(node->num_outputs());
  std::vector<bool> skips(node->num_outputs());
  for (size_t i = 0; i < wanted.size(); ++i) {
    wanted[i] = task.wants(node->next_edge(i));
    skips[i] = node->next_edge(i).valid() && !wanted[i];
  }
  const bool holds = task.skipped != nullptr && std::find(skips.begin(), skips.end(), true) != skips.end();
  TensorList held_grads = holds ? inputs : TensorList();
  TensorList outputs = Engine::apply_node(*node, std::move(inputs), wanted);
  if (holds) {
    task.skipped->push_back({node, std::move(held_grads), std::move(skips)});
  } else if (!task.keep_graph) {
    node->release_saved();
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Edge& edge = node->next_edge(i);
    if (!wanted[i]) continue;
    TensorList& target = task.buffers[edge.node.get()];
    if (target.empty()) target.resize(edge.node->num_inputs());
    accumulate(target[edge.input_nr], std::move(outputs[i]), task.create_graph);
    if (--task.dependencies[edge.node.get()] == 0) ready.push(edge.node);
  }
}

}  // namespace

TensorList Engine::execute(const std::vector<Edge>& roots, const TensorList& root_grads, bool keep_graph,
                           bool create_graph, const std::vector<Edge>& capture,
                           std::vector<SkippedGradients>* skipped) {
  GraphTask task;
  task.keep_graph = keep_graph;
  task.create_graph = create_graph;
  auto root = std::make_shared<GraphRoot>(roots, root_grads);
  if (!capture.empty()) {
    task.capturing = true;
    task.skipped = skipped;
    task.captured.resize(capture.size());
    for (size_t i = 0; i < capture.size(); ++i) {
      if (capture[i].valid()) task.captures[capture[i].node.get()].emplace_back(capture[i].input_nr, i);
    }
    mark_needed(root.get(), task);
    if (skipped != nullptr && !task.runs(root.get())) {
      std::vector<bool> every_valid;
      for (const Edge& edge : roots) every_valid.push_back(edge.valid());
      skipped->push_back({root, {}, std::move(every_valid)});
      return std::move(task.captured);
    }
  }
  count_dependencies(root.get(), task);

  CurrentTaskGuard guard(&task);
  // Each gradient runs in the dtypes its forward ran in, whatever autocast says now.
  AutocastOff no_autocast;
  {
    AutoGradMode grad_mode(create_graph);
    std::priority_queue<std::shared_ptr<Node>, std::vector<std::shared_ptr<Node>>, LaterFirst> ready;
    ready.push(root);
    while (!ready.empty()) {
      std::shared_ptr<Node> node = ready.top();
      ready.pop();
      run_node(task, node, ready);
    }
  }
  // Callbacks may queue further callbacks, which run in the same pass.
  for (size_t i = 0; i < task.callbacks.size(); ++i) {
    std::function<void()> callback = std::move(task.callbacks[i]);
    callback();
  }
  return std::move(task.captured);
}

TensorList Engine::apply_node(Node& node, TensorList grads, const std::vector<bool>& wanted) {
  profiler::RecordScope scope(profiler::Category::Autograd, [&] { return node.name(); });
  ApplyingGuard applying(node, wanted);
  return AnomalyMode::is_enabled() ? apply_with_anomaly_checks(node, std::move(grads))
                                   : validate_grads(node, node.apply(std::move(grads)));
}

bool Engine::wants_gradient(const Node& node, size_t i) {
  if (applying_node == &node) return (*applying_wanted)[i];
  return node.next_edge(i).valid();
}

void Engine::queue_callback(std::function<void()> fn) {
  BRISK_CHECK(current_task != nullptr,
              "queue_callback: final callbacks can only be installed during the backward pass");
  current_task->callbacks.push_back(std::move(fn));
}

}  // namespace brisk::autograd
