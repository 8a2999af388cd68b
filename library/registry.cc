#include "library/registry.h"

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <mutex>

#include "tensor/error.h"

namespace brisk::library::detail {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<OpEntry>, std::less<>> ops;
  std::deque<Kernel> kernels;  // installed kernels; addresses stable
};

// Never destroyed: ops stay callable from other objects' destructors at exit.
Registry& registry() {
  static Registry* instance = new Registry;
  return *instance;
}

OpEntry& entry_locked(Registry& r, const std::string& qualified) {
  std::unique_ptr<OpEntry>& slot = r.ops[qualified];
  if (!slot) {
    slot = std::make_unique<OpEntry>();
    slot->name = qualified;
  }
  return *slot;
}

// What differs between `signature` and `schema`, in words, or "" if they match. `who` is
// "the CPU kernel" or "find_op's signature".
std::string mismatch(const Schema& schema, const Signature& signature, const std::string& who) {
  if (signature.arguments.size() != schema.arguments.size())
    return fmt::format("{} takes {} arguments, the schema {}: {}", who, signature.arguments.size(),
                       schema.arguments.size(), schema.str());
  for (size_t i = 0; i < schema.arguments.size(); ++i) {
    const Argument& expected = schema.arguments[i];
    const CppArgument& actual = signature.arguments[i];
    if (actual.type != expected.type)
      return fmt::format("{}'s argument {} ({}) is {} in the schema, but its C++ type is {}", who, i, expected.name,
                         arg_type_name(expected.type), actual.cpp_name);
  }
  if (signature.returns != schema.returns)
    return fmt::format("{} returns {}, the schema {}", who, signature.cpp_returns, schema.returns.str());
  return "";
}

void install_locked(Registry& r, OpEntry& op, DeviceType device, Kernel kernel) {
  const char* device_name = device_type_name(device);
  std::string error = mismatch(*op.schema, kernel.signature, fmt::format("the {} kernel", device_name));
  if (!error.empty()) {
    op.errors.push_back(fmt::format("{}: {}", op.name, error));
    return;
  }
  auto& slot = op.kernels[static_cast<size_t>(device)];
  if (slot.load(std::memory_order_relaxed) != nullptr) {
    op.errors.push_back(
        fmt::format("{}: a second {} kernel was registered (one per device type)", op.name, device_name));
    return;
  }
  r.kernels.push_back(std::move(kernel));
  slot.store(&r.kernels.back(), std::memory_order_release);
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string_view unqualified(std::string_view name) {
  size_t colons = name.rfind("::");
  return colons == std::string_view::npos ? name : name.substr(colons + 2);
}

// ", did you mean a::b or c::d?" for the declared ops a few edits away, or of the same name
// in another namespace.
std::string close_matches_locked(const Registry& r, std::string_view name) {
  std::vector<std::string> matches;
  for (const auto& [candidate, op] : r.ops) {
    if (!op->schema) continue;
    if (edit_distance(candidate, name) <= 2 || unqualified(candidate) == unqualified(name))
      matches.push_back(candidate);
  }
  if (matches.empty()) return "";
  return fmt::format("; did you mean {}?", fmt::join(matches, " or "));
}

}  // namespace

const char* device_type_name(DeviceType type) {
  switch (type) {
    case DeviceType::CPU: return "CPU";
    case DeviceType::CUDA: return "CUDA";
    case DeviceType::Sim: return "Sim";
  }
  return "?";
}

void define(const std::string& ns, std::string_view schema_text) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  Schema schema;
  try {
    schema = parse_schema(schema_text);
  } catch (const Error& e) {
    std::string_view name = schema_text.substr(0, schema_text.find('('));
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    entry_locked(r, ns + "::" + std::string(name)).errors.push_back(ns + "::" + std::string(name) + ": " + e.what());
    return;
  }
  OpEntry& op = entry_locked(r, ns + "::" + schema.name);
  if (op.schema) {
    if (op.schema->str() != schema.str())
      op.errors.push_back(
          fmt::format("{}: declared twice with different schemas: {} and {}", op.name, op.schema->str(), schema.str()));
    return;
  }
  op.schema = std::move(schema);
  for (auto& [device, kernel] : op.waiting_for_def) install_locked(r, op, device, std::move(kernel));
  op.waiting_for_def.clear();
}

void add_kernel(const std::string& ns, std::string_view name, DeviceType device, Kernel kernel) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  OpEntry& op = entry_locked(r, ns + "::" + std::string(name));
  if (kernel.adapts_cpu_to_sim && device != DeviceType::Sim) {
    op.errors.push_back(fmt::format("{}: sim_kernel_from_cpu makes a Sim kernel, registered here for {}", op.name,
                                    device_type_name(device)));
    return;
  }
  if (op.schema) {
    install_locked(r, op, device, std::move(kernel));
  } else {
    op.waiting_for_def.emplace_back(device, std::move(kernel));
  }
}

void add_error(const std::string& ns, std::string_view name, std::string error) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  OpEntry& op = entry_locked(r, ns + "::" + std::string(name));
  op.errors.push_back(op.name + ": " + error);
}

const OpEntry& lookup(std::string_view qualified_name, const Signature& signature) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.ops.find(qualified_name);
  if (it == r.ops.end())
    BRISK_FAIL("find_op: no op named {} is registered{}", qualified_name, close_matches_locked(r, qualified_name));
  const OpEntry& op = *it->second;
  if (!op.errors.empty()) BRISK_FAIL("{}", fmt::join(op.errors, "\n"));
  if (!op.schema) {
    std::vector<const char*> devices;
    for (const auto& waiting : op.waiting_for_def) devices.push_back(device_type_name(waiting.first));
    BRISK_FAIL("{}: has kernels ({}) but was never declared: add m.def(\"{}(...) -> ...\") to BRISK_LIBRARY({}, m)",
               op.name, fmt::join(devices, ", "), unqualified(op.name),
               op.name.substr(0, op.name.size() - unqualified(op.name).size() - 2));
  }
  std::string error = mismatch(*op.schema, signature, "find_op's signature");
  if (!error.empty()) BRISK_FAIL("{}: {}", op.name, error);
  return op;
}

}  // namespace brisk::library::detail
