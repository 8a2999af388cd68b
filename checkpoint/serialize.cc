#include "checkpoint/serialize.h"

#include <nlohmann/json.hpp>
#include <string>

#include "checkpoint/safetensors.h"
#include "tensor/error.h"

namespace brisk {
namespace {

// The metadata entry that says what a file of brisk::save holds.
constexpr const char* kKindKey = "brisk.saved";
constexpr const char* kOptimizerKey = "brisk.optimizer";
constexpr const char* kTensorName = "tensor";

void write(const std::string& path, const nn::StateDict& tensors, const std::string& kind,
           checkpoint::Metadata metadata = {}) {
  metadata["format"] = "pt";
  metadata[kKindKey] = kind;
  checkpoint::save_safetensors(path, tensors, metadata, checkpoint::Checksums::kWrite);
}

// "a module", "an optimizer".
std::string with_article(const std::string& kind) {
  return (kind.find_first_of("aeiou") == 0 ? "an " : "a ") + kind;
}

// The file at `path`, which brisk::save must have written from a `kind`.
checkpoint::Safetensors read(const std::string& path, const std::string& kind) {
  checkpoint::Safetensors file = checkpoint::load_safetensors(path);
  auto saved = file.metadata.find(kKindKey);
  BRISK_CHECK(saved != file.metadata.end(),
              "load '{}': a safetensors file that brisk::save did not write (no \"{}\" in its metadata); read it "
              "with checkpoint::load_safetensors",
              path, kKindKey);
  BRISK_CHECK(saved->second == kind, "load '{}': the file holds {}, not {}", path, with_article(saved->second),
              with_article(kind));
  BRISK_CHECK(file.checksums_verified, "load '{}': the file has no checksums, which brisk::save writes: its header is "
              "corrupt", path);
  return file;
}

// Calls `load`, naming the file in any error it raises.
template <typename F>
void naming_file(const std::string& path, F&& load) {
  try {
    load();
  } catch (const Error& error) {
    throw Error("load '" + path + "': " + error.what());
  }
}

}  // namespace

void save(const nn::Module& module, const std::string& path) { write(path, module.state_dict(), "module"); }

void load(nn::Module& module, const std::string& path) {
  checkpoint::Safetensors file = read(path, "module");
  naming_file(path, [&] { module.load_state_dict(file.tensors); });
}

void save(const Tensor& tensor, const std::string& path) {
  BRISK_CHECK(tensor.defined(), "save '{}': the tensor is undefined", path);
  write(path, nn::StateDict{{kTensorName, tensor}}, "tensor");
}

void load(Tensor& tensor, const std::string& path) {
  checkpoint::Safetensors file = read(path, "tensor");
  const Tensor* saved = file.tensors.find(kTensorName);
  BRISK_CHECK(saved != nullptr && file.tensors.size() == 1, "load '{}': expected one tensor \"{}\", found {}", path,
              kTensorName, fmt::join(file.tensors.keys(), ", "));
  tensor = *saved;
}

// Tensor i under the name "i".
void save(const std::vector<Tensor>& tensors, const std::string& path) {
  nn::StateDict named;
  for (size_t i = 0; i < tensors.size(); ++i) {
    BRISK_CHECK(tensors[i].defined(), "save '{}': tensor {} of {} is undefined", path, i, tensors.size());
    named.insert(std::to_string(i), tensors[i]);
  }
  write(path, named, "tensor list", {{"brisk.count", std::to_string(tensors.size())}});
}

void load(std::vector<Tensor>& tensors, const std::string& path) {
  checkpoint::Safetensors file = read(path, "tensor list");
  std::vector<Tensor> loaded;
  for (size_t i = 0; i < file.tensors.size(); ++i) {
    const Tensor* saved = file.tensors.find(std::to_string(i));
    BRISK_CHECK(saved != nullptr, "load '{}': no tensor \"{}\" among the {} saved", path, i, file.tensors.size());
    loaded.push_back(*saved);
  }
  auto count = file.metadata.find("brisk.count");
  BRISK_CHECK(count != file.metadata.end() && count->second == std::to_string(loaded.size()),
              "load '{}': {} tensors, but the metadata says {}", path, loaded.size(),
              count == file.metadata.end() ? "nothing" : count->second);
  tensors = std::move(loaded);
}

void save(const optim::Optimizer& optimizer, const std::string& path) {
  optim::OptimizerState state = optimizer.state_dict();
  nn::StateDict tensors;
  for (const auto& [name, tensor] : state.tensors) tensors.insert(name, tensor);
  nlohmann::json record{{"name", optimizer.name()}, {"param_groups", state.param_groups}};
  write(path, tensors, "optimizer", {{kOptimizerKey, record.dump()}});
}

void load(optim::Optimizer& optimizer, const std::string& path) {
  checkpoint::Safetensors file = read(path, "optimizer");
  auto entry = file.metadata.find(kOptimizerKey);
  BRISK_CHECK(entry != file.metadata.end(), "load '{}': no \"{}\" in the metadata", path, kOptimizerKey);
  nlohmann::json record = nlohmann::json::parse(entry->second, nullptr, /*allow_exceptions=*/false);
  BRISK_CHECK(record.is_object() && record.contains("name") && record["name"].is_string() &&
                  record.contains("param_groups"),
              "load '{}': metadata \"{}\" is not an object with \"name\" and \"param_groups\": {}", path,
              kOptimizerKey, entry->second);
  const std::string saved_name = record["name"].get<std::string>();
  BRISK_CHECK(saved_name == optimizer.name(), "load '{}': the file holds the state of optimizer {}, not of {}", path,
              saved_name, optimizer.name());
  optim::OptimizerState state;
  state.param_groups = record["param_groups"];
  for (const auto& [name, tensor] : file.tensors) state.tensors[name] = tensor;
  naming_file(path, [&] { optimizer.load_state_dict(state); });
}

}  // namespace brisk
