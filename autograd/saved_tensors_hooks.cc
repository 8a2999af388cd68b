#include "autograd/saved_tensors_hooks.h"

#include <utility>

#include "tensor/error.h"

namespace brisk::autograd {
namespace {

thread_local std::shared_ptr<const SavedTensorsHookPair> current_hooks;

}  // namespace

SavedTensorsHooks::SavedTensorsHooks(PackHook pack, UnpackHook unpack) : previous_(current_hooks) {
  BRISK_CHECK(pack && unpack, "SavedTensorsHooks: both the pack and the unpack hook are needed");
  current_hooks =
      std::make_shared<const SavedTensorsHookPair>(SavedTensorsHookPair{std::move(pack), std::move(unpack)});
}

SavedTensorsHooks::~SavedTensorsHooks() { current_hooks = std::move(previous_); }

std::shared_ptr<const SavedTensorsHookPair> current_saved_tensors_hooks() { return current_hooks; }

}  // namespace brisk::autograd
