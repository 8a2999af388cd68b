// The one Catch2 v2 main() for every Brisk test; brisk_test (tools/build/defs.bzl)
// links it in. Test files only #include <catch2/catch.hpp>.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
