"""Common Bazel macros for Brisk."""

load("//tools/build:cuda.bzl", "if_cuda")

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

def brisk_cpu_gpu_test(name, srcs, deps = [], **kwargs):
    """A brisk_test on the CPU and, in a CUDA build, its gpu-tagged twin on the first GPU.

    The twin is named with _gpu_test for _test (gradcheck_test: gradcheck_gpu_test). It
    compiles the same sources with local_defines = ["BRISK_TEST_DEVICE_CUDA"], from which
    tests/test_device.h's test_device() answers cuda:0, and links //cuda. Tests make their
    inputs on test_device() and keep their expectations.

    Args:
      name: the CPU test's name; must end with _test.
      srcs: test sources, shared by both.
      deps: libraries under test; //tests:test_device is added (and //cuda for the twin).
      **kwargs: passed to both brisk_tests (data, size, ...).
    """
    if not name.endswith("_test"):
        fail("brisk_cpu_gpu_test %s: the name must end with _test" % name)
    deps = deps + ["//tests:test_device"]
    brisk_test(name = name, srcs = srcs, deps = deps, **kwargs)
    [brisk_test(
        name = gpu_name,
        srcs = srcs,
        deps = deps + ["//cuda"],
        local_defines = ["BRISK_TEST_DEVICE_CUDA"],
        tags = ["gpu"],
        **kwargs
    ) for gpu_name in if_cuda([name[:-len("_test")] + "_gpu_test"])]
