"""tile_cc_proto_library: C++ code from one .proto with the system protoc.

Bazel 4's native proto_library wants @com_google_protobuf (downloaded), so we
run Debian's protoc through a genrule instead.

    load("//third_party:proto.bzl", "tile_cc_proto_library")

    tile_cc_proto_library(
        name = "tile_ir_cc_proto",
        src = "tile_ir.proto",            # in this package
        deps = ["//other/pkg:other_cc_proto"],  # other tile_cc_proto_library targets
    )

The generated header is included by its workspace-relative path, e.g.
    #include "tile_ir/proto/tile_ir.pb.h"
and a .proto imports another by its workspace-relative path, e.g.
    import "other/pkg/other.proto";
google/protobuf/*.proto (well-known types) come from /usr/include.

Targets made: <name> (cc_library), <name>_genproto (genrule),
<name>_proto_srcs (filegroup of this .proto and, transitively, its deps').
"""

def tile_cc_proto_library(name, src, deps = [], visibility = None, testonly = None, **kwargs):
    if not src.endswith(".proto"):
        fail("tile_cc_proto_library: src must be a .proto file, got %r" % src)
    if ":" in src or src.startswith("/"):
        fail("tile_cc_proto_library: src must be a file in this package, got %r" % src)

    base = src[:-len(".proto")]
    hdr = base + ".pb.h"
    cc = base + ".pb.cc"

    # Workspace-relative path of the .proto, as protoc sees it with -I<root>.
    pkg = native.package_name()
    repo_root = native.repository_name()  # "@" for the main repository
    proto_rel = (pkg + "/" + src) if pkg else src

    native.filegroup(
        name = name + "_proto_srcs",
        srcs = [src] + [_proto_srcs_label(d) for d in deps],
        visibility = visibility,
        testonly = testonly,
    )

    # In the execroot a source file sits at <root>/<pkg>/<src>, where <root> is
    # "." for the main repository and "external/<repo>" otherwise. protoc runs
    # with -I<root>, so it names outputs <pkg>/<base>.pb.{h,cc} and must write
    # under $(GENDIR)/<root>, so that they land at $(RULEDIR)/<base>.pb.{h,cc}.
    if repo_root == "@":
        root = "."
        out_root = "$(GENDIR)"
    else:
        root = "external/" + repo_root[1:]
        out_root = "$(GENDIR)/" + root

    native.genrule(
        name = name + "_genproto",
        srcs = [":" + name + "_proto_srcs"],
        outs = [hdr, cc],
        tools = ["@protobuf//:protoc"],
        cmd = " ".join([
            "$(execpath @protobuf//:protoc)",
            "-I" + root,
            "-I$(GENDIR)",
            "-I/usr/include",
            "--cpp_out=" + out_root,
            root + "/" + proto_rel,
        ]),
        message = "protoc " + proto_rel,
        visibility = ["//visibility:private"],
        testonly = testonly,
    )

    native.cc_library(
        name = name,
        srcs = [cc],
        hdrs = [hdr],
        deps = deps + ["@protobuf"],
        visibility = visibility,
        testonly = testonly,
        **kwargs
    )

def _proto_srcs_label(dep):
    """'//a/b:foo' -> '//a/b:foo_proto_srcs'; ':foo' -> ':foo_proto_srcs'."""
    if ":" not in dep:
        # '//a/b' means '//a/b:b'.
        dep = dep + ":" + dep.split("/")[-1]
    return dep + "_proto_srcs"
