#include "data/file_bytes.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "tensor/error.h"

namespace brisk::data {

std::vector<uint8_t> read_file_bytes(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  BRISK_CHECK(file != nullptr, "cannot open '{}': {}", path, std::strerror(errno));
  struct stat info {};
  BRISK_CHECK(fstat(fileno(file.get()), &info) == 0, "cannot read '{}': {}", path, std::strerror(errno));
  BRISK_CHECK(S_ISREG(info.st_mode), "cannot read '{}': not a regular file", path);
  std::vector<uint8_t> bytes(static_cast<size_t>(info.st_size));
  size_t got = std::fread(bytes.data(), 1, bytes.size(), file.get());
  BRISK_CHECK(got == bytes.size() && !std::ferror(file.get()), "cannot read '{}': read {} of its {} bytes: {}", path,
              got, bytes.size(), std::strerror(errno));
  return bytes;
}

bool file_exists(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

}  // namespace brisk::data
