// Lets an exception go uncaught, for error_test: `uncaught_error_program MODE`, MODE one of
//   error          a brisk::Error leaves main (raised in throw_from_the_users_code)
//   thread         a brisk::Error leaves a std::thread's function
//   runtime_error  a std::runtime_error leaves main
//   caught         main catches the brisk::Error and prints its backtrace() to stdout
// It prints "started" first, to stdout (kept in its buffer when stdout is a pipe).
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>

#include "tensor/error.h"

namespace {

__attribute__((noinline)) void throw_from_the_users_code(int value) {
  BRISK_CHECK(value < 0, "the user's check failed: value {} is not negative", value);
}

}  // namespace

int main(int argc, char** argv) {
  std::printf("started\n");
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "error") throw_from_the_users_code(3);
  if (mode == "thread") std::thread([] { throw_from_the_users_code(4); }).join();
  if (mode == "runtime_error") throw std::runtime_error("not a brisk::Error");
  if (mode == "caught") {
    try {
      throw_from_the_users_code(5);
    } catch (const brisk::Error& error) {
      std::printf("backtrace:\n%s", error.backtrace().c_str());
      return 0;
    }
  }
  std::fprintf(stderr, "usage: uncaught_error_program error|thread|runtime_error|caught\n");
  return 2;
}
