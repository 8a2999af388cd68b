#pragma once
// Reading what train wrote: a file's lines, and a CSV line's fields.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace brisk::testing {

inline std::vector<std::string> lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

inline std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream s(line);
  for (std::string field; std::getline(s, field, ',');) out.push_back(field);
  return out;
}

}  // namespace brisk::testing
