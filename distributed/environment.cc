#include "distributed/environment.h"

#include <cstdlib>

#include "tensor/error.h"

namespace brisk::dist {

int env_rank_value(const char* caller, std::initializer_list<const char*> names, std::string* which) {
  for (const char* name : names) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') continue;
    char* end = nullptr;
    long parsed = std::strtol(value, &end, 10);
    BRISK_CHECK(*end == '\0' && parsed >= 0 && parsed < (1 << 24), "{}: {}='{}' is not a valid non-negative integer",
                caller, name, value);
    if (which != nullptr) *which = name;
    return static_cast<int>(parsed);
  }
  return -1;
}

}  // namespace brisk::dist
