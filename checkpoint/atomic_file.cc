#include "checkpoint/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "tensor/error.h"

namespace brisk::checkpoint {
namespace {

// The directory of `path` ("." for a bare file name) and its last component.
std::pair<std::string, std::string> split_path(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return {".", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

// Unique among the processes (pid) and the threads (counter) of this machine.
std::string temporary_name(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  auto [dir, name] = split_path(path);
  return fmt::format("{}/.{}.tmp-{}-{}", dir, name, getpid(), counter++);
}

void fsync_directory(const std::string& dir, const std::string& path) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  BRISK_CHECK(fd >= 0, "writing '{}': cannot open its directory '{}' to sync it: {}", path, dir, std::strerror(errno));
  int rc = ::fsync(fd);
  int error = errno;
  ::close(fd);
  BRISK_CHECK(rc == 0, "writing '{}': fsync of its directory '{}' failed: {}", path, dir, std::strerror(error));
}

}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)), temporary_path_(temporary_name(path_)) {
  BRISK_CHECK(!path_.empty() && path_.back() != '/', "AtomicFile: '{}' is not a file path", path_);
  fd_ = ::open(temporary_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  BRISK_CHECK(fd_ >= 0, "writing '{}': cannot create the temporary file '{}': {}", path_, temporary_path_,
              std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temporary_path_.c_str());
}

void AtomicFile::write(const void* data, size_t size) {
  BRISK_CHECK(!committed_, "writing '{}': write after commit", path_);
  const char* bytes = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::write(fd_, bytes, size);
    if (n < 0 && errno == EINTR) continue;
    BRISK_CHECK(n > 0, "writing '{}': write of {} bytes at byte {} of '{}' failed: {}", path_, size, size_,
                temporary_path_, std::strerror(errno));
    bytes += n;
    size -= static_cast<size_t>(n);
    size_ += static_cast<size_t>(n);
  }
}

void AtomicFile::commit() {
  BRISK_CHECK(!committed_, "writing '{}': commit twice", path_);
  BRISK_CHECK(::fsync(fd_) == 0, "writing '{}': fsync of '{}' failed: {}", path_, temporary_path_,
              std::strerror(errno));
  int rc = ::close(fd_);
  fd_ = -1;
  BRISK_CHECK(rc == 0, "writing '{}': closing '{}' failed: {}", path_, temporary_path_, std::strerror(errno));
  BRISK_CHECK(std::rename(temporary_path_.c_str(), path_.c_str()) == 0, "writing '{}': renaming '{}' to it failed: {}",
              path_, temporary_path_, std::strerror(errno));
  committed_ = true;
  fsync_directory(split_path(path_).first, path_);
}

}  // namespace brisk::checkpoint
