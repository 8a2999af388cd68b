#include "nn/module_list.h"

namespace brisk::nn {

std::shared_ptr<Module> ModuleListImpl::ptr(size_t index) const {
  BRISK_CHECK(index < modules_.size(), "{}: index {} is out of range for a {} of {} modules", name(), index, name(),
              modules_.size());
  return modules_[index];
}

void ModuleListImpl::append(std::string name, std::shared_ptr<Module> module) {
  register_module(std::move(name), module);
  modules_.push_back(std::move(module));
}

}  // namespace brisk::nn
