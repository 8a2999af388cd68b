"""The two Bazel outputs that tools/install.sh installs: one shared library and its headers.

    load("//tools/build:installed_library.bzl", "header_tarball", "whole_shared_library")

    whole_shared_library(name = "brisk", deps = [":brisk_libraries"])  # libbrisk.so
    header_tarball(name = "brisk_headers", deps = [":brisk_libraries"])  # brisk_headers.tar

Bazel 4 has no cc_shared_library, and a cc_binary(linkshared = 1) keeps only the objects that
something in it references (none: it has no sources of its own), so whole_shared_library links
every library of this repository with --whole-archive. Libraries from other repositories (the
system libraries, CUDA) stay what they are: shared libraries the .so records as needed.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")

def _in_this_repository(ctx, label):
    return label.workspace_root == ctx.label.workspace_root

def _whole_archive(ctx, feature_configuration, cc_toolchain, linker_input):
    libraries = [
        cc_common.create_library_to_link(
            actions = ctx.actions,
            feature_configuration = feature_configuration,
            cc_toolchain = cc_toolchain,
            static_library = library.static_library,
            pic_static_library = library.pic_static_library,
            alwayslink = True,
        )
        for library in linker_input.libraries
        if library.pic_static_library or library.static_library
    ]
    return cc_common.create_linker_input(
        owner = linker_input.owner,
        libraries = depset(libraries),
        user_link_flags = depset(linker_input.user_link_flags),
        additional_inputs = depset(linker_input.additional_inputs),
    )

def _whole_shared_library_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    feature_configuration = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    linking_context = cc_common.merge_cc_infos(cc_infos = [d[CcInfo] for d in ctx.attr.deps]).linking_context
    linker_inputs = [
        _whole_archive(ctx, feature_configuration, cc_toolchain, i) if _in_this_repository(ctx, i.owner) else i
        for i in linking_context.linker_inputs.to_list()
    ]
    outputs = cc_common.link(
        actions = ctx.actions,
        name = ctx.label.name,
        feature_configuration = feature_configuration,
        cc_toolchain = cc_toolchain,
        linking_contexts = [cc_common.create_linking_context(linker_inputs = depset(linker_inputs))],
        output_type = "dynamic_library",
        # --linkopt (a --config's sanitizer) as for any cc_binary, besides the libraries'
        # linkopts (-fopenmp); an undefined symbol is an error here rather than in the user's link.
        user_link_flags = ctx.fragments.cpp.linkopts + ["-Wl,--no-undefined"] + ctx.attr.linkopts,
    )
    return [DefaultInfo(files = depset([outputs.library_to_link.resolved_symlink_dynamic_library or outputs.library_to_link.dynamic_library]))]

whole_shared_library = rule(
    implementation = _whole_shared_library_impl,
    attrs = {
        "deps": attr.label_list(providers = [CcInfo]),
        "linkopts": attr.string_list(),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    fragments = ["cpp"],
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    doc = "lib<name>.so: every library of this repository among deps, whole.",
)

def _header_tarball_impl(ctx):
    headers = [
        h
        for h in cc_common.merge_cc_infos(cc_infos = [d[CcInfo] for d in ctx.attr.deps]).compilation_context.headers.to_list()
        if _in_this_repository(ctx, h.owner)
    ]
    listing = ctx.actions.declare_file(ctx.label.name + ".files")
    ctx.actions.write(listing, "\n".join(sorted([h.path for h in headers])) + "\n")
    tarball = ctx.actions.declare_file(ctx.label.name + ".tar")

    # Paths in the tarball are relative to the repository root (tensor/tensor.h), as the
    # sources include them.
    ctx.actions.run_shell(
        inputs = headers + [listing],
        outputs = [tarball],
        command = " ".join([
            "tar --create --dereference --file=%s --files-from=%s" % (tarball.path, listing.path),
            "--sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner",
            "--transform='s,^%s/,,'" % ctx.bin_dir.path,
            "--transform='s,^external/[^/]*/,,'",
        ]),
        mnemonic = "HeaderTarball",
        progress_message = "Packing the headers of %s" % ctx.label,
    )
    return [DefaultInfo(files = depset([tarball]))]

header_tarball = rule(
    implementation = _header_tarball_impl,
    attrs = {"deps": attr.label_list(providers = [CcInfo])},
    doc = "<name>.tar: the headers of this repository's libraries among deps, transitively.",
)
