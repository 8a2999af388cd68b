#pragma once
// The process-wide table of registered ops: what BRISK_LIBRARY and BRISK_LIBRARY_IMPL fill at
// static initialization and find_op reads (library/library.h is the API; this is its engine).
//
// Registration never throws: the translation units of one library initialize in any order
// (kernels may arrive before their op's def), and an exception there would end the program
// before main. A kernel is checked against the schema as soon as both are known, and installed
// only if it matches; every problem found is kept with the op and raised by each find_op of it.
#include <array>
#include <atomic>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "library/schema.h"
#include "library/signature.h"
#include "tensor/device.h"

namespace brisk::library::detail {

struct Kernel {
  ErasedFunction function = nullptr;  // the kernel
  ErasedFunction invoker = nullptr;   // an Invoker of the kernel's signature, erased
  Signature signature;
  bool adapts_cpu_to_sim = false;  // made by sim_kernel_from_cpu
};

struct OpEntry {
  std::string name;  // qualified: "myext::scaled_silu"
  // From its def, fixed once set; the installed kernels match it.
  std::optional<Schema> schema;
  // By DeviceType; written at registration, read by every call without a lock.
  std::array<std::atomic<const Kernel*>, 3> kernels{};

  // Guarded by the registry's lock:
  std::vector<std::pair<DeviceType, Kernel>> waiting_for_def;
  std::vector<std::string> errors;
};

// BRISK_LIBRARY's m.def(schema) for namespace `ns`.
void define(const std::string& ns, std::string_view schema);
// BRISK_LIBRARY_IMPL's m.impl(name, kernel) for namespace `ns` and `device`.
void add_kernel(const std::string& ns, std::string_view name, DeviceType device, Kernel kernel);
// A registration that is wrong by itself (e.g. a def in a BRISK_LIBRARY_IMPL block), kept
// with the op `ns::name` and raised by its lookups.
void add_error(const std::string& ns, std::string_view name, std::string error);

// find_op: the op, after checking `signature` against its schema. Raises brisk::Error for an
// unknown op (naming close matches), an op never declared with def, the problems found at
// registration, and a signature that does not match the schema.
const OpEntry& lookup(std::string_view qualified_name, const Signature& signature);

// The device type's name as BRISK_LIBRARY_IMPL spells it: "CPU", "CUDA", "Sim".
const char* device_type_name(DeviceType type);

}  // namespace brisk::library::detail
