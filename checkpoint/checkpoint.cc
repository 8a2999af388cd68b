#include "checkpoint/checkpoint.h"

#include <nlohmann/json.hpp>

#include "checkpoint/checkpoint_layout.h"
#include "checkpoint/checksums.h"
#include "checkpoint/compatibility.h"
#include "checkpoint/safetensors.h"
#include "tensor/error.h"

namespace brisk::checkpoint {
namespace {

// The layout's version: 2 since checksums (checkpoint/checksums.h). Version 1, written before
// any release, is refused.
constexpr const char* kVersion = "2";

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

// A brisk.* metadata entry of a loaded checkpoint.
const std::string& entry(const Metadata& metadata, const std::string& key, const std::string& path) {
  auto it = metadata.find(key);
  BRISK_CHECK(it != metadata.end(), "checkpoint '{}': no \"{}\" in the safetensors metadata", path, key);
  return it->second;
}

nlohmann::json json_entry(const Metadata& metadata, const std::string& key, const std::string& path) {
  const std::string& text = entry(metadata, key, path);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    BRISK_FAIL("checkpoint '{}': metadata \"{}\" is not valid JSON: {}", path, key, e.what());
  }
}

// A field of a JSON metadata entry, with errors naming the file, the entry and the field.
template <typename T>
T field(const nlohmann::json& json, const char* name, const std::string& key, const std::string& path) {
  BRISK_CHECK(json.is_object() && json.contains(name), "checkpoint '{}': metadata \"{}\" has no field \"{}\": {}", path,
              key, name, json.dump());
  try {
    return json.at(name).get<T>();
  } catch (const nlohmann::json::exception&) {
    BRISK_FAIL("checkpoint '{}': metadata \"{}\": field \"{}\" has the wrong type: {}", path, key, name,
               json.at(name).dump());
  }
}

uint64_t parse_unsigned(const std::string& text, const std::string& key, const std::string& path) {
  size_t used = 0;
  uint64_t value = 0;
  try {
    value = std::stoull(text, &used);
  } catch (const std::exception&) {
  }
  BRISK_CHECK(used == text.size() && !text.empty() && text[0] != '-',
              "checkpoint '{}': metadata \"{}\" should be a non-negative integer, got \"{}\"", path, key, text);
  return value;
}

}  // namespace

Checkpoint capture(const nn::Module& model, const optim::Optimizer& optimizer, const Progress& progress,
                   uint64_t data_seed, const optim::LRScheduler* scheduler) {
  Checkpoint out;
  out.model = model.state_dict();
  out.optimizer_name = optimizer.name();
  out.optimizer = optimizer.state_dict();
  if (scheduler != nullptr) out.scheduler = scheduler->state_dict();
  out.progress = progress;
  out.generator = default_generator().get_state();
  out.data_seed = data_seed;
  return out;
}

void restore(const Checkpoint& checkpoint, nn::Module& model, optim::Optimizer& optimizer,
             optim::LRScheduler* scheduler) {
  check_compatible(checkpoint, model, optimizer, scheduler);
  model.load_state_dict(checkpoint.model);
  optimizer.load_state_dict(checkpoint.optimizer);
  if (scheduler != nullptr) scheduler->load_state_dict(checkpoint.scheduler);
  default_generator().set_state(checkpoint.generator);
}

nn::StateDict checkpoint_tensors(const Checkpoint& checkpoint, const std::string& path) {
  nn::StateDict tensors;
  for (const auto& [name, tensor] : checkpoint.model) {
    BRISK_CHECK(!starts_with(name, kOptimizerPrefix),
                "save_checkpoint '{}': model tensor \"{}\" clashes with the optimizer's \"{}\" prefix", path, name,
                kOptimizerPrefix);
    tensors.insert(name, tensor);
  }
  for (const auto& [name, tensor] : checkpoint.optimizer.tensors) tensors.insert(kOptimizerPrefix + name, tensor);
  return tensors;
}

Metadata checkpoint_metadata(const Checkpoint& checkpoint, const std::string& path) {
  Metadata metadata;
  for (const auto& [key, value] : checkpoint.metadata) {
    BRISK_CHECK(key != "format" && !starts_with(key, "brisk."),
                "save_checkpoint '{}': metadata key \"{}\" is reserved for the checkpoint itself", path, key);
    metadata[key] = value;
  }
  metadata["format"] = "pt";
  metadata["brisk.checkpoint"] = kVersion;
  metadata["brisk.optimizer"] =
      nlohmann::json{{"name", checkpoint.optimizer_name}, {"param_groups", checkpoint.optimizer.param_groups}}.dump();
  const Progress& p = checkpoint.progress;
  metadata["brisk.progress"] = nlohmann::json{{"epoch", p.epoch}, {"batch", p.batch}, {"step", p.step}}.dump();
  metadata["brisk.generator"] =
      nlohmann::json{{"seed", checkpoint.generator.seed}, {"offset", checkpoint.generator.offset}}.dump();
  metadata["brisk.data_seed"] = std::to_string(checkpoint.data_seed);
  if (!checkpoint.scheduler.is_null()) metadata["brisk.scheduler"] = checkpoint.scheduler.dump();
  return metadata;
}

void save_checkpoint(const std::string& path, const Checkpoint& checkpoint) {
  save_safetensors(path, checkpoint_tensors(checkpoint, path), checkpoint_metadata(checkpoint, path),
                   Checksums::kWrite);
}

Checkpoint load_checkpoint(const std::string& path) {
  Safetensors file = load_safetensors(path);
  return checkpoint_from(file.tensors, file.metadata, file.checksums_verified, path);
}

Checkpoint checkpoint_from(const nn::StateDict& tensors, const Metadata& metadata, bool checksums_verified,
                           const std::string& path) {
  BRISK_CHECK(metadata.count("brisk.checkpoint") != 0,
              "checkpoint '{}': no \"brisk.checkpoint\" in the safetensors metadata: a safetensors file, but not a "
              "Brisk checkpoint (read its weights with load_safetensors)",
              path);
  const std::string& version = metadata.at("brisk.checkpoint");
  BRISK_CHECK(version == kVersion,
              "checkpoint '{}': layout version \"{}\" is not supported, this build reads only version {} (version 1, "
              "without checksums, predates any release: save the checkpoint again with a build of its time)",
              path, version, kVersion);
  // A checksums entry whose key a corruption changed reads as none.
  BRISK_CHECK(checksums_verified,
              "checkpoint '{}': no \"{}\" in the safetensors metadata, which checkpoints of version {} have: the "
              "header is corrupt",
              path, kChecksumsKey, kVersion);

  Checkpoint out;
  out.path = path;
  for (const auto& [name, tensor] : tensors) {
    if (starts_with(name, kOptimizerPrefix)) {
      out.optimizer.tensors[name.substr(std::string(kOptimizerPrefix).size())] = tensor;
    } else {
      out.model.insert(name, tensor);
    }
  }
  nlohmann::json optimizer = json_entry(metadata, "brisk.optimizer", path);
  out.optimizer_name = field<std::string>(optimizer, "name", "brisk.optimizer", path);
  out.optimizer.param_groups = field<nlohmann::json>(optimizer, "param_groups", "brisk.optimizer", path);

  nlohmann::json progress = json_entry(metadata, "brisk.progress", path);
  out.progress.epoch = field<int64_t>(progress, "epoch", "brisk.progress", path);
  out.progress.batch = field<int64_t>(progress, "batch", "brisk.progress", path);
  out.progress.step = field<int64_t>(progress, "step", "brisk.progress", path);
  BRISK_CHECK(out.progress.epoch >= 0 && out.progress.batch >= 0 && out.progress.step >= 0,
              "checkpoint '{}': metadata \"brisk.progress\" has a negative count: {}", path, progress.dump());

  nlohmann::json generator = json_entry(metadata, "brisk.generator", path);
  out.generator.seed = field<uint64_t>(generator, "seed", "brisk.generator", path);
  out.generator.offset = field<uint64_t>(generator, "offset", "brisk.generator", path);

  out.data_seed = parse_unsigned(entry(metadata, "brisk.data_seed", path), "brisk.data_seed", path);
  if (metadata.count("brisk.scheduler") != 0) out.scheduler = json_entry(metadata, "brisk.scheduler", path);
  for (const auto& [key, value] : metadata) {
    if (key != "format" && !starts_with(key, "brisk.")) out.metadata[key] = value;
  }
  return out;
}

}  // namespace brisk::checkpoint
