"""brisk_dependencies(): every repository Brisk's BUILD files use, declared in one call.

Brisk's own WORKSPACE calls it, and so does the WORKSPACE of a project that uses Brisk
(docs/install.md):

    local_repository(name = "brisk", path = "/path/to/brisk")

    load("@brisk//tools/build:deps.bzl", "brisk_dependencies")

    brisk_dependencies()

It declares, offline (nothing is ever downloaded):
  - @rules_cc, @rules_java, @remote_coverage_tools: stand-ins that Bazel 4.2.3 would otherwise
    fetch (third_party/bazel_shims/README.md);
  - the Debian system libraries (@eigen, @fmt, @spdlog, @catch2, @gloo, @zlib, @cli11,
    @nlohmann_json, @onednn, @xxhash, @protobuf, @mpi) and the Fashion-MNIST files (@fashion_mnist), from tools/setup.sh's packages;
  - @local_cuda, real when nvcc is found at $CUDA_PATH or /usr/local/cuda
    (third_party/cuda/cuda_configure.bzl).
A repository the WORKSPACE declared before the call is left as it is, so a project can bring
its own (e.g. another Eigen).

Labels are written with Label(): they name Brisk's files whichever workspace calls this.
"""

load("//third_party/cuda:cuda_configure.bzl", "cuda_configure")

def _offline_shim_impl(rctx):
    shim_dir = rctx.path(rctx.attr.build_file).dirname
    for entry in shim_dir.readdir():
        rctx.symlink(entry, entry.basename)

# A local_repository of one of Brisk's shim folders, found through a label: local_repository
# wants a path, which is relative to the workspace that declares it and so is wrong in another
# project's WORKSPACE.
_offline_shim = repository_rule(
    implementation = _offline_shim_impl,
    attrs = {"build_file": attr.label(allow_single_file = True, doc = "the shim's top BUILD file")},
)

_SHIMS = ["rules_cc", "rules_java", "remote_coverage_tools"]

# name: (path, BUILD file in //third_party)
_SYSTEM_LIBRARIES = {
    "eigen": ("/usr/include/eigen3", "eigen.BUILD"),
    "fmt": ("/usr", "fmt.BUILD"),
    "spdlog": ("/usr", "spdlog.BUILD"),
    "catch2": ("/usr", "catch2.BUILD"),
    "gloo": ("/usr", "gloo.BUILD"),
    "zlib": ("/usr", "zlib.BUILD"),
    "cli11": ("/usr", "cli11.BUILD"),
    "nlohmann_json": ("/usr", "nlohmann_json.BUILD"),
    "onednn": ("/usr", "onednn.BUILD"),
    "xxhash": ("/usr", "xxhash.BUILD"),
    "protobuf": ("/usr", "protobuf.BUILD"),
    # Debian libopenmpi-dev: the MPI backend (//distributed/mpi) only.
    "mpi": ("/usr/lib/x86_64-linux-gnu/openmpi", "mpi.BUILD"),
    # Debian dataset-fashion-mnist: @fashion_mnist//:files.
    "fashion_mnist": ("/usr/share/datasets/fashion-mnist", "fashion_mnist.BUILD"),
}

def brisk_dependencies():
    """Declares the repositories above, except those the WORKSPACE already has."""
    declared = native.existing_rules()
    for name in _SHIMS:
        if name not in declared:
            _offline_shim(
                name = name,
                build_file = Label("//third_party/bazel_shims/%s:BUILD" % name),
            )
    for name, (path, build_file) in _SYSTEM_LIBRARIES.items():
        if name not in declared:
            native.new_local_repository(
                name = name,
                path = path,
                build_file = str(Label("//third_party:" + build_file)),
            )
    if "local_cuda" not in declared:
        cuda_configure(name = "local_cuda")
