"""link_only: a library's objects without its headers.

What Bazel 5's cc_library(implementation_deps = ...) does, for Bazel 4: a target that must
link a library but includes none of its headers depends on link_only(dep = library), so the
library's headers stay out of its compiles and of everything that depends on it (the CUDA
kernels' nvcc inputs, for one).

    link_only(name = "cpu_objects", dep = ":cpu")
"""

def _link_only_impl(ctx):
    return [CcInfo(linking_context = ctx.attr.dep[CcInfo].linking_context)]

link_only = rule(
    implementation = _link_only_impl,
    attrs = {"dep": attr.label(providers = [CcInfo])},
    doc = "The linking half of a cc_library's CcInfo.",
)
