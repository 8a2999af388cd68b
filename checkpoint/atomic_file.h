#pragma once
// Writing a file so that readers, and the file system after a crash, see either the old
// file or the complete new one, never a part:
//
//   AtomicFile out("ckpt/model.safetensors");   // writes "ckpt/.model.safetensors.tmp-<pid>-<n>"
//   out.write(header.data(), header.size());
//   out.commit();                               // fsync the file, rename it over the target,
//                                               // fsync the directory
//
// A file that is destroyed without commit() (an exception while writing) removes its
// temporary file and leaves the target as it was. The temporary file is in the target's
// directory because rename() is atomic only within one file system.
#include <cstddef>
#include <string>

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
  size_t size_ = 0;
  bool committed_ = false;
};

}  // namespace brisk::checkpoint
