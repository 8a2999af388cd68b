#pragma once
// Writing a file so that readers, and the file system after a crash, see either the old
// file or the complete new one, never a part:
//
//   AtomicFile out("ckpt/model.safetensors");   // writes "ckpt/.model.safetensors.tmp-<host>-<pid>-<n>"
//   out.write(header.data(), header.size());
//   out.commit();                               // fsync the file, rename it over the target,
//                                               // fsync the directory
//
// A file that is destroyed without commit() (an exception while writing) removes its
// temporary file and leaves the target as it was. The temporary file is in the target's
// directory because rename() is atomic only within one file system.
//
// A process killed while writing leaves its temporary file behind; remove_stale_temporaries
// removes those whose writer is gone (a later save of the same path, or the program at start):
//
//   for (const std::string& removed : checkpoint::remove_stale_temporaries("ckpt/model.safetensors"))
//     spdlog::info("removed {}, left by a write that was killed", removed);
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace brisk::checkpoint {

class AtomicFile {
 public:
  // Creates the temporary file; raises brisk::Error naming it and the system's reason when
  // it cannot (e.g. the directory does not exist).
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, size_t size);
  // Bytes written so far.
  size_t size() const { return size_; }
  // Makes the written bytes the content of the target path. Only once.
  void commit();

  const std::string& path() const { return path_; }
  const std::string& temporary_path() const { return temporary_path_; }

 private:
  std::string path_;
  std::string temporary_path_;
  int fd_ = -1;
  uint64_t device_ = 0, inode_ = 0;  // of the temporary file, for remove_stale_temporaries
  size_t size_ = 0;
  bool committed_ = false;
};

// The parts of a temporary file's name ".<target>.tmp-<host>-<pid>-<n>".
struct TemporaryFileName {
  std::string target;  // the file name (without directory) it was to be renamed to
  std::string host;    // the machine of the writing process (gethostname)
  int64_t pid = 0;     // the writing process
  uint64_t counter = 0;
};

// The parts of `file_name` (without directory) when it is a temporary file's name.
std::optional<TemporaryFileName> parse_temporary_name(const std::string& file_name);

// Removes the temporary files in `directory` of targets whose name `is_target` accepts that
// their writer left behind: written on this machine by a process that no longer exists, or
// whose process ID now belongs to a process started after the file was last written, or to
// this process but not to one of its AtomicFiles. Temporary files of other machines (a shared
// file system) are left alone: whether their writer lives cannot be told from here. Returns
// the paths removed.
std::vector<std::string> remove_stale_temporaries(const std::string& directory,
                                                  const std::function<bool(const std::string& target)>& is_target);

// The stale temporary files of the one target `path`.
std::vector<std::string> remove_stale_temporaries(const std::string& path);

}  // namespace brisk::checkpoint
