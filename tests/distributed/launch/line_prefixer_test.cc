#include "distributed/launch/line_prefixer.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

using brisk::launch::LinePrefixer;

namespace {

// A temporary file the prefixer writes to (a pipe would fill up at 64 KiB).
struct Sink {
  Sink() : file(std::tmpfile()), fd(fileno(file)) { REQUIRE(file != nullptr); }
  ~Sink() { std::fclose(file); }
  // What was written since the last call.
  std::string take() {
    std::string text;
    char buffer[4096];
    ssize_t n;
    while ((n = pread(fd, buffer, sizeof(buffer), read_at)) > 0) {
      text.append(buffer, static_cast<size_t>(n));
      read_at += n;
    }
    return text;
  }
  std::FILE* file;
  int fd;
  off_t read_at = 0;
};

}  // namespace

TEST_CASE("LinePrefixer: writes whole lines only, each with the prefix", "[launch]") {
  Sink sink;
  LinePrefixer prefixer("[rank 4] ", sink.fd);
  prefixer.feed("one\ntw");
  CHECK(sink.take() == "[rank 4] one\n");
  prefixer.feed("o\n\nthree");
  CHECK(sink.take() == "[rank 4] two\n[rank 4] \n");
  prefixer.finish();
  CHECK(sink.take() == "[rank 4] three\n");
  prefixer.finish();
  CHECK(sink.take().empty());
}

TEST_CASE("LinePrefixer: a line longer than kMaxLine is cut, not buffered without bound", "[launch]") {
  Sink sink;
  LinePrefixer prefixer("> ", sink.fd);
  std::string chunk(LinePrefixer::kMaxLine / 2, 'x');
  prefixer.feed(chunk);
  CHECK(sink.take().empty());
  prefixer.feed(chunk);
  CHECK(sink.take() == "> " + chunk + chunk + "\n");
}
