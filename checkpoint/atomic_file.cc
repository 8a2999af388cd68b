#include "checkpoint/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
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

std::string this_host() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "unknown";
  return name;
}

// Unique among the machines (host), processes (pid) and threads (counter) that write to a
// directory.
std::string temporary_name(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  auto [dir, name] = split_path(path);
  return fmt::format("{}/.{}.tmp-{}-{}-{}", dir, name, this_host(), getpid(), counter++);
}

// The temporary files (device and inode, whatever path names them) of this process's live
// AtomicFiles: those of its own process ID that are not stale.
using FileId = std::pair<dev_t, ino_t>;
std::mutex live_mutex;
std::set<FileId>& live_temporaries() {
  static std::set<FileId> files;
  return files;
}

std::optional<FileId> file_id(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  return FileId{info.st_dev, info.st_ino};
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.size() <= 18 &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// When process `pid` started, in seconds since the epoch, from /proc; nullopt when /proc does
// not say.
std::optional<double> process_start_time(int64_t pid) {
  std::ifstream stat_file(fmt::format("/proc/{}/stat", pid));
  std::string stat((std::istreambuf_iterator<char>(stat_file)), std::istreambuf_iterator<char>());
  size_t comm_end = stat.rfind(')');  // the command name may hold spaces and parentheses
  if (comm_end == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(comm_end + 1));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i != 22) continue;  // field 22: starttime, in clock ticks after boot
    std::ifstream system_stat("/proc/stat");
    for (std::string key; system_stat >> key;) {
      if (key != "btime") continue;
      double boot = 0;
      system_stat >> boot;
      return boot + std::stod(field) / static_cast<double>(::sysconf(_SC_CLK_TCK));
    }
  }
  return std::nullopt;
}

// Whether the writer of temporary file `path`, named `name`, is gone.
bool is_stale(const std::string& path, const TemporaryFileName& name) {
  if (name.host != this_host()) return false;
  if (name.pid == ::getpid()) {
    std::optional<FileId> id = file_id(path);
    std::lock_guard<std::mutex> lock(live_mutex);
    return id && live_temporaries().count(*id) == 0;
  }
  if (::kill(static_cast<pid_t>(name.pid), 0) != 0 && errno == ESRCH) return true;
  // The process ID in use again, by a process started after the file was last written.
  struct stat info {};
  std::optional<double> started = process_start_time(name.pid);
  return ::stat(path.c_str(), &info) == 0 && started && *started > static_cast<double>(info.st_mtime) + 1;
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
  struct stat info {};
  if (::fstat(fd_, &info) != 0) {
    const int error = errno;
    ::close(fd_);
    ::unlink(temporary_path_.c_str());
    BRISK_FAIL("writing '{}': fstat of '{}' failed: {}", path_, temporary_path_, std::strerror(error));
  }
  device_ = info.st_dev;
  inode_ = info.st_ino;
  std::lock_guard<std::mutex> lock(live_mutex);
  live_temporaries().insert({info.st_dev, info.st_ino});
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temporary_path_.c_str());
  std::lock_guard<std::mutex> lock(live_mutex);
  live_temporaries().erase({static_cast<dev_t>(device_), static_cast<ino_t>(inode_)});
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

std::optional<TemporaryFileName> parse_temporary_name(const std::string& file_name) {
  const size_t tmp = file_name.rfind(".tmp-");
  const size_t last = file_name.rfind('-');
  const size_t middle = last == std::string::npos || last == 0 ? std::string::npos : file_name.rfind('-', last - 1);
  if (file_name.empty() || file_name[0] != '.' || tmp == std::string::npos || tmp < 2 || middle == std::string::npos ||
      middle <= tmp + 5) {
    return std::nullopt;
  }
  const std::string pid = file_name.substr(middle + 1, last - middle - 1), counter = file_name.substr(last + 1);
  if (!all_digits(pid) || !all_digits(counter)) return std::nullopt;
  return TemporaryFileName{file_name.substr(1, tmp - 1), file_name.substr(tmp + 5, middle - tmp - 5), std::stoll(pid),
                           std::stoull(counter)};
}

std::vector<std::string> remove_stale_temporaries(const std::string& directory,
                                                  const std::function<bool(const std::string& target)>& is_target) {
  std::vector<std::string> removed;
  DIR* dir = ::opendir(directory.c_str());
  if (dir == nullptr) return removed;  // no directory: nothing was written there
  std::vector<std::string> stale;
  while (dirent* entry = ::readdir(dir)) {
    std::optional<TemporaryFileName> name = parse_temporary_name(entry->d_name);
    const std::string path = directory + "/" + entry->d_name;
    if (name && is_target(name->target) && is_stale(path, *name)) stale.push_back(path);
  }
  ::closedir(dir);
  for (const std::string& path : stale) {
    if (::unlink(path.c_str()) == 0) removed.push_back(path);
  }
  return removed;
}

std::vector<std::string> remove_stale_temporaries(const std::string& path) {
  auto [dir, name] = split_path(path);
  return remove_stale_temporaries(dir, [&name = name](const std::string& target) { return target == name; });
}

}  // namespace brisk::checkpoint
