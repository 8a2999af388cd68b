#pragma once
// BRISK_STORE_TOKEN: the job's secret that every client presents to the TCP store.
#include <string>

namespace brisk::launch {

// 128 random bits from /dev/urandom, as 32 lowercase hex digits.
std::string random_store_token();

// True for a non-empty string of hex digits.
bool is_valid_store_token(const std::string& token);

}  // namespace brisk::launch
