#pragma once
// LinePrefixer: copies a worker's output stream to one of the launcher's, each line led by
// a prefix such as "[rank 3] ". A line is written with one write() once it is complete, so
// lines of different workers never interleave mid-line; a last line without a newline gets
// one at finish().
#include <string>
#include <string_view>

namespace brisk::launch {

class LinePrefixer {
 public:
  // Lines longer than this are cut and written in pieces, so a worker that never writes a
  // newline cannot make the launcher buffer without bound.
  static constexpr size_t kMaxLine = 64 * 1024;

  LinePrefixer(std::string prefix, int out_fd) : prefix_(std::move(prefix)), out_fd_(out_fd) {}

  // Takes the next bytes of the stream; writes every line they complete.
  void feed(std::string_view bytes);
  // The stream ended: writes what is left as a last line.
  void finish();

 private:
  void write_line(std::string_view line);

  std::string prefix_;
  int out_fd_;
  std::string pending_;
};

}  // namespace brisk::launch
