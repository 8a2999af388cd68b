#pragma once
// Reading the fields of optimizer and scheduler state dicts. A missing key or a value of the
// wrong type throws brisk::Error naming the owner ("SGD", "StepLR") and the key, instead of
// nlohmann's own exceptions.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace brisk::optim::detail {

double json_number(const nlohmann::json& json, const char* key, const std::string& owner);
int64_t json_int(const nlohmann::json& json, const char* key, const std::string& owner);
bool json_bool(const nlohmann::json& json, const char* key, const std::string& owner);
std::vector<double> json_numbers(const nlohmann::json& json, const char* key, const std::string& owner);

}  // namespace brisk::optim::detail
