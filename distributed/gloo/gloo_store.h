#pragma once
// GlooStore: lets Gloo rendezvous (exchange its pairs' addresses) through a dist::Store.
#include <gloo/rendezvous/store.h>

#include <memory>

#include "distributed/store/store.h"

namespace brisk::dist {

class GlooStore : public gloo::rendezvous::Store {
 public:
  explicit GlooStore(std::shared_ptr<dist::Store> store) : store_(std::move(store)) {}

  void set(const std::string& key, const std::vector<char>& data) override;
  std::vector<char> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override;

 private:
  std::shared_ptr<dist::Store> store_;
};

}  // namespace brisk::dist
