"""Offline stand-in for @rules_cc//cc:defs.bzl: forwards to the native rules.

Debian's bazel-rules-cc is too new for Bazel 4.2.3 (needs use_cpp_toolchain),
and the real one would be downloaded, so this tiny repository replaces it.
"""

def cc_library(**kwargs):
    native.cc_library(**kwargs)

def cc_binary(**kwargs):
    native.cc_binary(**kwargs)

def cc_test(**kwargs):
    native.cc_test(**kwargs)

def cc_import(**kwargs):
    native.cc_import(**kwargs)

def cc_toolchain(**kwargs):
    native.cc_toolchain(**kwargs)

def cc_toolchain_suite(**kwargs):
    native.cc_toolchain_suite(**kwargs)

def cc_proto_library(**kwargs):
    native.cc_proto_library(**kwargs)

def objc_library(**kwargs):
    native.objc_library(**kwargs)

def objc_import(**kwargs):
    native.objc_import(**kwargs)
