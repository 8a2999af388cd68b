"""CUDA support: if_cuda and cuda_library.

@local_cuda is created by //third_party/cuda:cuda_configure.bzl; CUDA_ENABLED is
True when nvcc was found at $CUDA_PATH or /usr/local/cuda. Nothing is selected
by flags: a machine with the toolkit builds the CUDA code, one without builds
the rest (CPU-only), automatically.

Declaring CUDA code (e.g. tensor/BUILD):

    load("//tools/build:cuda.bzl", "cuda_library", "if_cuda")

    cuda_library(
        name = "cuda_kernels",
        srcs = ["cuda/add.cu", "cuda/matmul.cu"],  # .cu files, each compiled once by nvcc
        hdrs = ["cuda/kernels.h"],                 # headers of this library (may be included by the .cu)
        deps = [":tensor_core", "@local_cuda//:cublas"],  # headers of all deps are visible to nvcc
        copts = ["-lineinfo"],                     # extra nvcc flags (optional)
    )

    cc_library(
        name = "tensor",
        srcs = ["tensor.cc"] + if_cuda(["cuda_backend.cc"], ["cuda_stub.cc"]),
        copts = if_cuda(["-DBRISK_WITH_CUDA=1"]),
        deps = [":tensor_core"] + if_cuda([":cuda_kernels"]),
    )

Without CUDA, cuda_library(name) is a cc_library with just `hdrs` and `deps` (no
objects), so its label stays valid; choose sources that call into it with if_cuda.
"""

load("@local_cuda//:defs.bzl", _CUDA_ENABLED = "CUDA_ENABLED", _NVCC = "NVCC")

CUDA_ENABLED = _CUDA_ENABLED

# GPU architectures: machine code for each, plus PTX of the last so newer GPUs can JIT it.
CUDA_ARCHS = ["80", "90"]

# For a cc_library that reports the architectures (brisk::cuda::build_info()):
# defines BRISK_CUDA_ARCHS as the token list sm_80,sm_90,compute_90.
CUDA_ARCHS_DEFINE = "BRISK_CUDA_ARCHS=" + ",".join(
    ["sm_" + a for a in CUDA_ARCHS] + ["compute_" + CUDA_ARCHS[-1]],
)

NVCC_FLAGS = [
    "-std=c++17",
    "-O3",
] + ["-gencode arch=compute_%s,code=sm_%s" % (a, a) for a in CUDA_ARCHS] + [
    "-gencode arch=compute_%s,code=compute_%s" % (CUDA_ARCHS[-1], CUDA_ARCHS[-1]),
    "-Xcompiler -fPIC",
    "--expt-relaxed-constexpr",
    "--extended-lambda",
    # Eigen 3.4's headers trigger "#20012-D: __host__ annotation is ignored on a
    # non-virtual function ... explicitly defaulted" many times per file (harmless).
    "-diag-suppress 20012",
]

def if_cuda(if_true, if_false = []):
    """Returns if_true when the CUDA toolkit was found, else if_false."""
    return if_true if CUDA_ENABLED else if_false

def _nvcc_inputs_impl(ctx):
    # Everything nvcc needs from `deps`: their transitive headers (made inputs of
    # the compile genrules, so they exist in the sandbox) and their include
    # paths/defines, written to an nvcc --options-file.
    cc = cc_common.merge_cc_infos(cc_infos = [d[CcInfo] for d in ctx.attr.deps]).compilation_context
    # nvcc has no -iquote, so quote includes become -I, except directories that
    # are already -isystem (e.g. Eigen): a plain -I would make their headers
    # non-system and bring their warnings out.
    system = cc.system_includes.to_list()
    flags = ["-D" + d for d in cc.defines.to_list()]
    flags += ["-isystem " + p for p in system]
    flags += ["-I" + p for p in cc.includes.to_list() + cc.quote_includes.to_list() if p not in system]
    ctx.actions.write(ctx.outputs.flags, "\n".join(flags) + "\n")
    return [DefaultInfo(files = depset(
        [ctx.outputs.flags] + ctx.files.hdrs,
        transitive = [cc.headers],
    ))]

_nvcc_inputs = rule(
    implementation = _nvcc_inputs_impl,
    attrs = {
        "deps": attr.label_list(providers = [CcInfo]),
        "hdrs": attr.label_list(allow_files = True),
    },
    outputs = {"flags": "%{name}.nvcc_flags"},
)

def cuda_library(name, srcs = [], hdrs = [], deps = [], copts = [], **kwargs):
    """A cc_library of CUDA code: each .cu in srcs is compiled once with nvcc.

    How nvcc sees headers: a helper target `<name>_nvcc_inputs` collects the
    library's own `hdrs` plus every transitive header of `deps` (CcInfo) and
    writes their -I/-isystem/-D flags to `<name>_nvcc_inputs.nvcc_flags`. Each
    per-source genrule lists that target in its srcs, so all those headers are
    declared inputs (present in the sandbox, tracked for rebuilds), and passes the
    flags file with --options-file. The workspace root is on the include path,
    so `#include "tensor/foo.h"` works (the header must be in `hdrs` or a dep's hdrs).

    The objects (PIC) are wrapped in a cc_library that also depends on `deps`
    and @local_cuda//:cudart. Without CUDA: a cc_library with `hdrs`/`deps` only.

    Args:
      name: library name.
      srcs: .cu files.
      hdrs: headers of this library (exported like cc_library hdrs).
      deps: cc_library deps (their headers are visible to nvcc and they are linked).
      copts: extra nvcc flags.
      **kwargs: passed to the cc_library (visibility, testonly, alwayslink, ...).
    """
    if not CUDA_ENABLED:
        native.cc_library(name = name, hdrs = hdrs, deps = deps, **kwargs)
        return

    inputs = name + "_nvcc_inputs"
    _nvcc_inputs(
        name = inputs,
        deps = deps,
        hdrs = hdrs,
        testonly = kwargs.get("testonly", False),
        visibility = ["//visibility:private"],
    )

    objs = []
    for src in srcs:
        if not src.endswith(".cu"):
            fail("cuda_library %s: srcs must be .cu files, got %s" % (name, src))
        stem = src.split(":")[-1][:-len(".cu")].replace("/", "_")
        obj = "_objs/%s/%s.pic.o" % (name, stem)
        native.genrule(
            name = "%s_nvcc_%s" % (name, stem),
            srcs = [src, ":" + inputs, ":%s.nvcc_flags" % inputs],
            outs = [obj],
            cmd = " ".join([
                _NVCC,
                " ".join(NVCC_FLAGS),
                " ".join(copts),
                "-I. -I$(GENDIR)",
                "--options-file $(location :%s.nvcc_flags)" % inputs,
                "-c $(location %s) -o $@" % src,
            ]),
            message = "nvcc %s" % src,
            testonly = kwargs.get("testonly", False),
            visibility = ["//visibility:private"],
        )
        objs.append(obj)

    native.cc_library(
        name = name,
        srcs = objs,
        hdrs = hdrs,
        deps = deps + ["@local_cuda//:cudart"],
        **kwargs
    )
