"""Common Bazel macros for Brisk."""

def brisk_test(name, srcs, deps = [], tags = [], data = [], **kwargs):
    """A Catch2 v2 test: a cc_test linked with //tests:catch_main (which has main()).

    Write test cases with TEST_CASE/SECTION/REQUIRE from <catch2/catch.hpp>;
    do not define CATCH_CONFIG_MAIN. Tests that need a GPU get tags = ["gpu"]:
    tools/test.sh skips them unless `nvidia-smi -L` succeeds.

    Example (tests/BUILD):
        load("//tools/build:defs.bzl", "brisk_test")
        brisk_test(
            name = "tensor_test",
            srcs = ["tensor_test.cc"],
            deps = ["//tensor"],
        )

    Args:
      name: test name (bazel test //pkg:name).
      srcs: test sources.
      deps: libraries under test; //tests:catch_main is added.
      tags: e.g. ["gpu"].
      data: runtime files (e.g. "@fashion_mnist//:files").
      **kwargs: passed to cc_test (size, timeout, copts, env, args, ...).
    """
    native.cc_test(
        name = name,
        srcs = srcs,
        deps = deps + ["//tests:catch_main"],
        tags = tags,
        data = data,
        **kwargs
    )
