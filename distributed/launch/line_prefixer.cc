#include "distributed/launch/line_prefixer.h"

#include <unistd.h>

#include <cerrno>

namespace brisk::launch {

void LinePrefixer::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    size_t newline = bytes.find('\n');
    if (newline == std::string_view::npos) {
      pending_.append(bytes);
      if (pending_.size() >= kMaxLine) {
        write_line(pending_);
        pending_.clear();
      }
      return;
    }
    pending_.append(bytes.substr(0, newline));
    write_line(pending_);
    pending_.clear();
    bytes.remove_prefix(newline + 1);
  }
}

void LinePrefixer::finish() {
  if (!pending_.empty()) write_line(pending_);
  pending_.clear();
}

void LinePrefixer::write_line(std::string_view line) {
  std::string out;
  out.reserve(prefix_.size() + line.size() + 1);
  out.append(prefix_).append(line).push_back('\n');
  std::string_view rest = out;
  while (!rest.empty()) {
    ssize_t n = ::write(out_fd_, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    // The launcher's own output is gone (a closed pipe): the worker's line is dropped, the
    // job goes on.
    if (n <= 0) return;
    rest.remove_prefix(static_cast<size_t>(n));
  }
}

}  // namespace brisk::launch
