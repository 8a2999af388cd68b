#include "tensor/generator.h"

namespace brisk {

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(mutex_);
  state_ = State{seed, 0};
}

uint64_t Generator::seed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return state_.seed;
}

uint64_t Generator::reserve(uint64_t count) {
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t first = state_.offset;
  state_.offset += count;
  return first;
}

Generator::State Generator::get_state() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return state_;
}

void Generator::set_state(State state) {
  std::lock_guard<std::mutex> lock(mutex_);
  state_ = state;
}

Generator& default_generator() {
  static Generator generator;
  return generator;
}

void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }

}  // namespace brisk
