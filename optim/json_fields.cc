#include "optim/json_fields.h"

#include "tensor/error.h"

namespace brisk::optim::detail {
namespace {

const nlohmann::json& field(const nlohmann::json& json, const char* key, const std::string& owner) {
  BRISK_CHECK(json.is_object() && json.contains(key), "{}: the state dict has no \"{}\" (got {})", owner, key,
              json.dump());
  return json[key];
}

}  // namespace

double json_number(const nlohmann::json& json, const char* key, const std::string& owner) {
  const nlohmann::json& value = field(json, key, owner);
  BRISK_CHECK(value.is_number(), "{}: \"{}\" in the state dict should be a number, got {}", owner, key, value.dump());
  return value.get<double>();
}

int64_t json_int(const nlohmann::json& json, const char* key, const std::string& owner) {
  const nlohmann::json& value = field(json, key, owner);
  BRISK_CHECK(value.is_number_integer(), "{}: \"{}\" in the state dict should be an integer, got {}", owner, key,
              value.dump());
  return value.get<int64_t>();
}

bool json_bool(const nlohmann::json& json, const char* key, const std::string& owner) {
  const nlohmann::json& value = field(json, key, owner);
  BRISK_CHECK(value.is_boolean(), "{}: \"{}\" in the state dict should be true or false, got {}", owner, key,
              value.dump());
  return value.get<bool>();
}

std::vector<double> json_numbers(const nlohmann::json& json, const char* key, const std::string& owner) {
  const nlohmann::json& value = field(json, key, owner);
  bool numbers = value.is_array();
  for (const auto& v : value) numbers = numbers && v.is_number();
  BRISK_CHECK(numbers, "{}: \"{}\" in the state dict should be a list of numbers, got {}", owner, key, value.dump());
  return value.get<std::vector<double>>();
}

}  // namespace brisk::optim::detail
