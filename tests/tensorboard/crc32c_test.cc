#include "tensorboard/crc32c.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <string>

using brisk::tensorboard::crc32c;
using brisk::tensorboard::masked_crc32c;

TEST_CASE("crc32c: the Castagnoli check values") {
  // The catalogue's check value of "123456789", and RFC 3720 (iSCSI) B.4's 32-byte examples.
  REQUIRE(crc32c("123456789", 9) == 0xe3069283u);
  REQUIRE(crc32c("", 0) == 0u);
  std::string zeros(32, '\0'), ones(32, '\xff'), ascending(32, '\0'), descending(32, '\0');
  for (int i = 0; i < 32; ++i) ascending[i] = static_cast<char>(i), descending[i] = static_cast<char>(31 - i);
  REQUIRE(crc32c(zeros.data(), zeros.size()) == 0x8a9136aau);
  REQUIRE(crc32c(ones.data(), ones.size()) == 0x62a8ab43u);
  REQUIRE(crc32c(ascending.data(), ascending.size()) == 0x46dd794eu);
  REQUIRE(crc32c(descending.data(), descending.size()) == 0x113fdb5cu);
}

TEST_CASE("masked_crc32c: rotated right by 15 bits plus TFRecord's delta") {
  // ((0xe3069283 >> 15) | (0xe3069283 << 17)) + 0xa282ead8, modulo 2^32.
  REQUIRE(masked_crc32c("123456789", 9) == 0xc78ab0e5u);
}
