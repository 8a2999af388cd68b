#include "checkpoint/compatibility.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include "tensor/error.h"

namespace brisk::checkpoint {
namespace {

// The scheduler state_dict entries that record how far it got, not what schedule it follows.
bool is_progress_entry(const std::string& key) {
  return key == "last_epoch" || key == "_step_count" || key == "_last_lr";
}

std::string file_of(const Checkpoint& checkpoint) {
  return checkpoint.path.empty() ? std::string("checkpoint") : fmt::format("checkpoint '{}'", checkpoint.path);
}

void model_problems(const nn::StateDict& saved, const nn::StateDict& built, std::vector<std::string>& problems) {
  for (const auto& [name, tensor] : built) {
    const Tensor* there = saved.find(name);
    if (there == nullptr) {
      problems.push_back(fmt::format("model: {} {} is not in the checkpoint", name, tensor.sizes()));
    } else if (there->sizes() != tensor.sizes()) {
      problems.push_back(
          fmt::format("model: {} is {} in the checkpoint, {} in this model", name, there->sizes(), tensor.sizes()));
    }
  }
  for (const auto& [name, tensor] : saved) {
    if (!built.contains(name)) {
      problems.push_back(fmt::format("model: the checkpoint's {} {} is not in this model", name, tensor.sizes()));
    }
  }
}

void optimizer_problems(const Checkpoint& checkpoint, const optim::Optimizer& optimizer,
                        std::vector<std::string>& problems) {
  if (checkpoint.optimizer_name != optimizer.name()) {
    problems.push_back(
        fmt::format("optimizer: the checkpoint's is {}, this run's {}", checkpoint.optimizer_name, optimizer.name()));
    return;
  }
  const nlohmann::json& saved = checkpoint.optimizer.param_groups;
  const auto& built = optimizer.param_groups();
  if (!saved.is_array() || saved.size() != built.size()) {
    problems.push_back(fmt::format("optimizer {}: {} parameter groups in the checkpoint, {} in this run",
                                   optimizer.name(), saved.is_array() ? saved.size() : 0, built.size()));
    return;
  }
  for (size_t g = 0; g < built.size(); ++g) {
    const size_t saved_params = saved[g].contains("params") ? saved[g]["params"].size() : 0;
    if (saved_params != built[g].params().size()) {
      problems.push_back(
          fmt::format("optimizer {}: parameter group {} has {} parameters in the checkpoint, {} in this run",
                      optimizer.name(), g, saved_params, built[g].params().size()));
    }
  }
}

void scheduler_problems(const nlohmann::json& saved, const optim::LRScheduler* scheduler,
                        std::vector<std::string>& problems) {
  if (saved.is_null() != (scheduler == nullptr)) {
    problems.push_back(scheduler == nullptr
                           ? "LR scheduler: the checkpoint has one's state, and this run has no scheduler"
                           : fmt::format("LR scheduler {}: the checkpoint has no scheduler state", scheduler->name()));
    return;
  }
  if (scheduler == nullptr) return;
  const nlohmann::json built = scheduler->state_dict();
  for (const auto& [key, value] : built.items()) {
    if (is_progress_entry(key)) continue;
    if (!saved.contains(key)) {
      problems.push_back(fmt::format("LR scheduler {}: the checkpoint's has no {} (another kind of scheduler?)",
                                     scheduler->name(), key));
    } else if (saved[key] != value) {
      problems.push_back(fmt::format("LR scheduler {}: {} is {} in the checkpoint, {} in this run", scheduler->name(),
                                     key, saved[key].dump(), value.dump()));
    }
  }
}

}  // namespace

std::vector<std::string> compatibility_problems(const Checkpoint& checkpoint, const nn::Module& model,
                                                const optim::Optimizer& optimizer,
                                                const optim::LRScheduler* scheduler) {
  std::vector<std::string> problems;
  model_problems(checkpoint.model, model.state_dict(), problems);
  optimizer_problems(checkpoint, optimizer, problems);
  scheduler_problems(checkpoint.scheduler, scheduler, problems);
  return problems;
}

void check_compatible(const Checkpoint& checkpoint, const nn::Module& model, const optim::Optimizer& optimizer,
                      const optim::LRScheduler* scheduler) {
  const std::vector<std::string> problems = compatibility_problems(checkpoint, model, optimizer, scheduler);
  BRISK_CHECK(problems.empty(),
              "{} cannot resume this run, which differs from the one that saved it (build the model, optimizer and "
              "LR schedule as that run did: the same layers, the same number of epochs and steps per epoch):\n  {}",
              file_of(checkpoint), fmt::join(problems, "\n  "));
}

void check_metadata(const Checkpoint& checkpoint, const Metadata& run) {
  std::vector<std::string> differences;
  for (const auto& [key, value] : run) {
    auto saved = checkpoint.metadata.find(key);
    if (saved == checkpoint.metadata.end()) {
      differences.push_back(fmt::format("saved without {}, this run has {}", key, value));
    } else if (saved->second != value) {
      differences.push_back(fmt::format("saved with {} {}, this run has {}", key, saved->second, value));
    }
  }
  BRISK_CHECK(differences.empty(), "{}: {} (resuming exactly needs the same)", file_of(checkpoint),
              fmt::join(differences, "; "));
}

}  // namespace brisk::checkpoint
