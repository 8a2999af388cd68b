#pragma once
// A string-keyed dictionary that remembers insertion order, as the names of a module's
// parameters, buffers and children must (state_dict() lists them in registration order,
// like PyTorch). Iteration yields items that are std::pair<std::string, V> with libtorch's
// accessors too (torch::OrderedDict::Item):
//
//   for (const auto& [name, tensor] : model->named_parameters()) ...
//   for (const auto& p : model->named_parameters()) use(p.key(), p.value());
#include <cstddef>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tensor/error.h"

namespace brisk::nn {

template <typename V>
class OrderedDict {
 public:
  // item.first / item.second, structured bindings, or libtorch's key() / value() / *item.
  struct Item : std::pair<std::string, V> {
    using std::pair<std::string, V>::pair;
    const std::string& key() const noexcept { return this->first; }
    V& value() noexcept { return this->second; }
    const V& value() const noexcept { return this->second; }
    V& operator*() noexcept { return this->second; }
    const V& operator*() const noexcept { return this->second; }
    V* operator->() noexcept { return &this->second; }
    const V* operator->() const noexcept { return &this->second; }
    const std::pair<std::string, V>& pair() const noexcept { return *this; }
  };
  using iterator = typename std::vector<Item>::iterator;
  using const_iterator = typename std::vector<Item>::const_iterator;

  OrderedDict() = default;
  OrderedDict(std::initializer_list<Item> items) {
    for (const Item& item : items) insert(item.first, item.second);
  }

  // Adds a new key; a key that is already present is an error.
  V& insert(std::string key, V value) {
    BRISK_CHECK(!contains(key), "OrderedDict: key \"{}\" already present", key);
    index_.emplace(key, items_.size());
    items_.emplace_back(std::move(key), std::move(value));
    return items_.back().second;
  }

  bool contains(const std::string& key) const { return index_.count(key) != 0; }
  // Null when absent.
  V* find(const std::string& key) { return const_cast<V*>(std::as_const(*this).find(key)); }
  const V* find(const std::string& key) const {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].second;
  }
  // Errors naming the key when absent.
  V& operator[](const std::string& key) { return at(key); }
  const V& operator[](const std::string& key) const { return at(key); }
  V& at(const std::string& key) { return const_cast<V&>(std::as_const(*this).at(key)); }
  const V& at(const std::string& key) const {
    const V* value = find(key);
    BRISK_CHECK(value != nullptr, "OrderedDict: no key \"{}\"", key);
    return *value;
  }

  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  bool is_empty() const { return empty(); }  // libtorch's name
  // The first and last items inserted; the dictionary must not be empty.
  const Item& front() const {
    BRISK_CHECK(!empty(), "OrderedDict: front() of an empty dictionary");
    return items_.front();
  }
  const Item& back() const {
    BRISK_CHECK(!empty(), "OrderedDict: back() of an empty dictionary");
    return items_.back();
  }
  void clear() {
    items_.clear();
    index_.clear();
  }

  iterator begin() { return items_.begin(); }
  iterator end() { return items_.end(); }
  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.end(); }
  const std::vector<Item>& items() const { return items_; }

  std::vector<std::string> keys() const {
    std::vector<std::string> out;
    out.reserve(items_.size());
    for (const Item& item : items_) out.push_back(item.first);
    return out;
  }
  std::vector<V> values() const {
    std::vector<V> out;
    out.reserve(items_.size());
    for (const Item& item : items_) out.push_back(item.second);
    return out;
  }

 private:
  std::vector<Item> items_;
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace brisk::nn

namespace brisk {

// libtorch's spelling, torch::OrderedDict<std::string, Tensor>: keys are strings here.
template <typename Key, typename Value>
using OrderedDict = std::enable_if_t<std::is_same_v<Key, std::string>, nn::OrderedDict<Value>>;

}  // namespace brisk
