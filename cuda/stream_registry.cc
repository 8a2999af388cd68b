#include "cuda/stream_registry.h"

namespace brisk::cuda {

StreamRef StreamRegistry::created(StreamHandle handle) {
  std::lock_guard<std::mutex> lock(mutex_);
  return {handle, assign(handle)};
}

StreamRef StreamRegistry::ref(StreamHandle handle) {
  if (handle == nullptr) return {handle, kDefaultStreamId};
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = ids_.find(handle);
  return {handle, it != ids_.end() ? it->second : assign(handle)};
}

StreamRef StreamRegistry::retire(StreamHandle handle) {
  if (handle == nullptr) return {handle, kDefaultStreamId};
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = ids_.find(handle);
  if (it == ids_.end()) return {handle, next_id_++};  // never used: an id no block refers to
  StreamRef ref{handle, it->second};
  ids_.erase(it);
  return ref;
}

uint64_t StreamRegistry::assign(StreamHandle handle) {
  uint64_t id = next_id_++;
  ids_[handle] = id;
  return id;
}

StreamRegistry& stream_registry() {
  static auto* registry = new StreamRegistry();
  return *registry;
}

}  // namespace brisk::cuda
