#include "nn/module_list.h"

namespace brisk::nn {

std::shared_ptr<Module> ModuleListImpl::ptr(size_t index) const {
  BRISK_CHECK(index < modules_.size(), "ModuleList: index {} is out of range for a ModuleList of {} modules", index,
              modules_.size());
  return modules_[index];
}

}  // namespace brisk::nn
