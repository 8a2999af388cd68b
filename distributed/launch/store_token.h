#pragma once
// BRISK_STORE_TOKEN: the job's secret that every client presents to the TCP store.
#include <string>

namespace brisk::launch {

// 128 random bits from /dev/urandom, as 32 lowercase hex digits.
std::string random_store_token();

// The token the workers of round `round` present (launch --max-restarts): `token` itself in
// round 0, then `token` followed by the round as 8 hex digits. Every round's store accepts
// only its own round's workers, so a worker left over from an earlier round cannot join.
std::string round_store_token(const std::string& token, int round);

// True for a non-empty string of hex digits.
bool is_valid_store_token(const std::string& token);

}  // namespace brisk::launch
