#pragma once
// Reading a whole file into memory, for the dataset readers.
#include <cstdint>
#include <string>
#include <vector>

namespace brisk::data {

// The bytes of the file at `path`. Raises brisk::Error naming the path and the system's
// reason when it cannot be opened or read.
std::vector<uint8_t> read_file_bytes(const std::string& path);

// True when `path` names an existing regular file.
bool file_exists(const std::string& path);

}  // namespace brisk::data
