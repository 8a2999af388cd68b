"""Common Bazel macros for Brisk.

Brisk's own labels are written with Label(), so that they name Brisk's targets also when the
macros are called from another workspace (@brisk//tools/build:defs.bzl, docs/install.md).
"""

load("//tools/build:cuda.bzl", "if_cuda")

# What compiling and linking Brisk's code requires, carried by its own targets, so that another
# workspace that depends on @brisk builds it right with no flags of its own (docs/install.md):
# C++17 (Bazel's autoconfigured toolchain passes -std=c++0x before a target's copts, which come
# later and win) and OpenMP, whose absence would not fail the build but make every CPU kernel run
# on one thread. -fopenmp in linkopts reaches every binary that links a Brisk library.
BRISK_COPTS = ["-std=c++17", "-fopenmp"]
BRISK_LINKOPTS = ["-fopenmp"]

def brisk_cc_library(name, copts = [], linkopts = [], **kwargs):
    """A cc_library of Brisk: compiled with BRISK_COPTS, linked with BRISK_LINKOPTS.

    Every C++ library of Brisk is declared with it instead of cc_library (binaries with
    brisk_cc_binary, tests with brisk_test):

        load("//tools/build:defs.bzl", "brisk_cc_library")

        brisk_cc_library(
            name = "tensor",
            srcs = ["tensor.cc"],
            hdrs = ["tensor.h"],
            deps = [":dtype"],
        )

    Args:
      name: library name.
      copts: extra compile options, after BRISK_COPTS.
      linkopts: extra link options, after BRISK_LINKOPTS.
      **kwargs: passed to cc_library.
    """
    native.cc_library(name = name, copts = BRISK_COPTS + copts, linkopts = BRISK_LINKOPTS + linkopts, **kwargs)

def brisk_cc_binary(name, copts = [], linkopts = [], **kwargs):
    """A cc_binary compiled with BRISK_COPTS and linked with BRISK_LINKOPTS.

    Brisk's own programs use it, and so can a program of another workspace (C++17 is what its
    sources need to include Brisk's headers; without it they stop at brisk/requires_cxx17.h):

        load("@brisk//tools/build:defs.bzl", "brisk_cc_binary")

        brisk_cc_binary(
            name = "train",
            srcs = ["train.cc"],
            deps = ["@brisk//:brisk"],
        )

    Args:
      name: binary name.
      copts: extra compile options, after BRISK_COPTS.
      linkopts: extra link options, after BRISK_LINKOPTS.
      **kwargs: passed to cc_binary.
    """
    native.cc_binary(name = name, copts = BRISK_COPTS + copts, linkopts = BRISK_LINKOPTS + linkopts, **kwargs)

def brisk_test(name, srcs, deps = [], tags = [], data = [], copts = [], linkopts = [], **kwargs):
    """A Catch2 v2 test: a cc_test linked with //tests:catch_main (which has main()), compiled
    with BRISK_COPTS and linked with BRISK_LINKOPTS.

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
      copts: extra compile options, after BRISK_COPTS.
      linkopts: extra link options, after BRISK_LINKOPTS.
      **kwargs: passed to cc_test (size, timeout, env, args, ...).
    """
    native.cc_test(
        name = name,
        srcs = srcs,
        deps = deps + [Label("//tests:catch_main")],
        tags = tags,
        data = data,
        copts = BRISK_COPTS + copts,
        linkopts = BRISK_LINKOPTS + linkopts,
        **kwargs
    )

def brisk_gpu_tests(names, deps = [], srcs = [], **kwargs):
    """gpu-tagged brisk_tests, one per name, built only with CUDA (tools/test.sh runs them only
    where `nvidia-smi -L` works).

    Each test's sources are name + ".cc" and `srcs` (shared headers).

    Args:
      names: test names; each must end with _gpu_test.
      deps: libraries under test (//tests:catch_main is added).
      srcs: sources every test also compiles (e.g. a shared header).
      **kwargs: passed to every brisk_test (data, size, ...).
    """
    for name in if_cuda(names):
        if not name.endswith("_gpu_test"):
            fail("brisk_gpu_tests %s: the name must end with _gpu_test" % name)
        brisk_test(
            name = name,
            srcs = [name + ".cc"] + srcs,
            deps = deps,
            tags = ["gpu"],
            **kwargs
        )

def brisk_cpu_gpu_test(name, srcs, deps = [], **kwargs):
    """A brisk_test on the CPU, its twin on the simulated device, and in a CUDA build its
    gpu-tagged twin on the first GPU.

    The twins compile the same sources with a define from which tests/test_device.h's
    test_device() answers another device; tests make their inputs on test_device() and keep
    their expectations.
      - name with _sim_test for _test (gradcheck_test: gradcheck_sim_test): sim:0, with
        local_defines = ["BRISK_TEST_DEVICE_SIM"], linking //tensor/sim. Not gpu-tagged: it runs
        everywhere, CI included, and fails where code reads device memory from the host or
        mixes devices (docs/devices.md).
      - name with _gpu_test (CUDA builds only): cuda:0, with BRISK_TEST_DEVICE_CUDA, linking
        //cuda, tagged "gpu".

    Args:
      name: the CPU test's name; must end with _test.
      srcs: test sources, shared by all.
      deps: libraries under test; //tests:test_device is added (and the device's library for
        each twin).
      **kwargs: passed to every brisk_test (data, size, ...).
    """
    if not name.endswith("_test"):
        fail("brisk_cpu_gpu_test %s: the name must end with _test" % name)
    deps = deps + [Label("//tests:test_device")]
    stem = name[:-len("_test")]
    brisk_test(name = name, srcs = srcs, deps = deps, **kwargs)
    brisk_test(
        name = stem + "_sim_test",
        srcs = srcs,
        deps = deps + [Label("//tensor/sim")],
        local_defines = ["BRISK_TEST_DEVICE_SIM"],
        **kwargs
    )
    [brisk_test(
        name = gpu_name,
        srcs = srcs,
        deps = deps + [Label("//cuda")],
        local_defines = ["BRISK_TEST_DEVICE_CUDA"],
        tags = ["gpu"],
        **kwargs
    ) for gpu_name in if_cuda([stem + "_gpu_test"])]
