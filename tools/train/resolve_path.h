#pragma once
// Paths given on the command line of a program started by `bazel run`.
#include <string>

namespace brisk::train {

// Relative paths are taken from the directory `bazel run` was started in (Bazel runs the
// program inside its runfiles tree and names the caller's directory in
// BUILD_WORKING_DIRECTORY); unchanged outside `bazel run`.
std::string resolve_path(const std::string& path);

}  // namespace brisk::train
