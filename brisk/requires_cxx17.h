#pragma once
// Brisk's headers are C++17. Every one of them includes this first (directly or through the
// headers it includes), so that a translation unit compiled for an older standard stops here
// with one message instead of hundreds of errors from the code below it (Bazel's C++ toolchain
// compiles with -std=c++0x unless a target says otherwise: docs/install.md).
#if __cplusplus < 201703L
#error "Brisk needs C++17: compile with -std=c++17 (with Bazel: brisk_cc_binary of @brisk//tools/build:defs.bzl; see docs/install.md)"
// GCC and Clang carry on after #error; a missing include is fatal to both, so it ends the
// compilation before the errors that the rest of the header would bring.
#include "brisk: compilation stopped, see the error above"
#endif
