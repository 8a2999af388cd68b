"""Common Bazel macros for Brisk.

Brisk's own labels are written with Label(), so that they name Brisk's targets also when the
macros are called from another workspace (@brisk//tools/build:defs.bzl, docs/install.md).
"""

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
        deps = deps + [Label("//tests:catch_main")],
        tags = tags,
        data = data,
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
