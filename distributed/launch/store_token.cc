#include "distributed/launch/store_token.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <fstream>

#include "tensor/error.h"

namespace brisk::launch {

std::string random_store_token() {
  std::array<uint8_t, 16> bytes{};
  std::ifstream urandom("/dev/urandom", std::ios::binary);
  urandom.read(reinterpret_cast<char*>(bytes.data()), bytes.size());
  BRISK_CHECK(urandom.gcount() == static_cast<std::streamsize>(bytes.size()),
              "launch: cannot read {} bytes from /dev/urandom for the store token", bytes.size());
  std::string token;
  for (uint8_t byte : bytes) token += fmt::format("{:02x}", byte);
  return token;
}

std::string round_store_token(const std::string& token, int round) {
  return round == 0 ? token : fmt::format("{}{:08x}", token, round);
}

bool is_valid_store_token(const std::string& token) {
  return !token.empty() &&
         std::all_of(token.begin(), token.end(), [](unsigned char c) { return std::isxdigit(c) != 0; });
}

}  // namespace brisk::launch
