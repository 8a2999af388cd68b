#pragma once
// The calling thread's stack, recorded cheaply and symbolized later: how brisk::Error keeps
// the place it was raised for BRISK_BACKTRACE (tensor/error.h, docs/errors.md).
//
//   std::vector<void*> frames = capture_backtrace();
//   std::string text = format_backtrace(frames);  // "  #0 train_step(Net&) at train.cc:42\n..."
#include <string>
#include <vector>

#include "brisk/requires_cxx17.h"

namespace brisk {

// The return addresses of the calling thread's stack, innermost first, starting `skip`
// frames above the caller of capture_backtrace; at most 64 frames.
std::vector<void*> capture_backtrace(int skip = 0);

// One line per frame, innermost first: "  #N <function> at <file>:<line>", with C++ names
// demangled. Names and lines come from binutils' addr2line when it is on the PATH (lines
// only where the binary has debug information, e.g. built with -g), else from the dynamic
// symbol table (dladdr: exported functions only), else "<object>+0x<offset>". Runs
// addr2line once per object file: for reports, not for hot paths.
std::string format_backtrace(const std::vector<void*>& frames);

}  // namespace brisk
