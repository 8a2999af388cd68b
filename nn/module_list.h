#pragma once
// nn::ModuleList: an indexable list of registered modules of any types, with no forward of
// its own (the owner decides how to call them). nn::Sequential is a ModuleList with a forward.
//
//   nn::ModuleList blocks;
//   for (int i = 0; i < 4; ++i) blocks->push_back(nn::Linear(64, 64));
//   for (const auto& block : *blocks) x = block->forward(x);  // nn::Module::forward, virtual
//   x = blocks->at<nn::LinearImpl>(0).forward(x);
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "nn/module.h"
#include "nn/module_holder.h"

namespace brisk::nn {

class ModuleListImpl : public Module {
 public:
  ModuleListImpl() = default;
  template <typename First, typename... Rest>
  explicit ModuleListImpl(First&& first, Rest&&... rest) {
    push_back(std::forward<First>(first));
    (push_back(std::forward<Rest>(rest)), ...);
  }

  std::string name() const override { return "ModuleList"; }

  // Appends a module holder or std::shared_ptr to a module, named by its position.
  template <typename M>
  void push_back(const M& module) {
    append(std::to_string(modules_.size()), detail::module_pointer(module));
  }

  size_t size() const { return modules_.size(); }
  bool is_empty() const { return modules_.empty(); }
  // The module at `index` (an error names the index and the size when out of range).
  std::shared_ptr<Module> ptr(size_t index) const;
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  // The module at `index` as its concrete type (errors if it is another type).
  template <typename T>
  T& at(size_t index) const {
    auto* typed = dynamic_cast<T*>(ptr(index).get());
    BRISK_CHECK(typed != nullptr, "{}::at: the module at index {} is a {}, not the requested type", name(), index,
                ptr(index)->name());
    return *typed;
  }

  std::vector<std::shared_ptr<Module>>::const_iterator begin() const { return modules_.begin(); }
  std::vector<std::shared_ptr<Module>>::const_iterator end() const { return modules_.end(); }

 protected:
  // Registers `module` under `name` and appends it.
  void append(std::string name, std::shared_ptr<Module> module);

 private:
  std::vector<std::shared_ptr<Module>> modules_;
};

BRISK_MODULE(ModuleList);

}  // namespace brisk::nn
