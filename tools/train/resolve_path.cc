#include "tools/train/resolve_path.h"

#include <cstdlib>

namespace brisk::train {

std::string resolve_path(const std::string& path) {
  const char* caller_dir = std::getenv("BUILD_WORKING_DIRECTORY");
  if (path.empty() || path[0] == '/' || caller_dir == nullptr) return path;
  return std::string(caller_dir) + "/" + path;
}

}  // namespace brisk::train
