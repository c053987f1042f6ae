"""filecheck_test: LLVM lit-style `// RUN:` tests driven by FileCheck.

    load("//third_party:filecheck.bzl", "filecheck_test")

    filecheck_test(
        name = "passes_filecheck",
        srcs = glob(["*.tile"]),
        tool = "//tools:tile-opt",   # any binary label
    )

Each file in srcs becomes one sh_test, <name>_<file stem>, running
third_party/run_filecheck.sh over it; <name> is a test_suite of them all.
In a RUN line, the tool's short name (the label's target name, e.g. tile-opt),
`FileCheck` (LLVM 16's) and the short names of `tools` are replaced by their
runfiles paths; %s is the file, %t a temporary path; `not CMD` inverts CMD's
exit status. For example:

    // RUN: tile-opt --split-input-file %s | FileCheck %s
    // RUN: not tile-opt --bad-flag %s 2>&1 | FileCheck %s --check-prefix=ERR

Arguments:
  name: test_suite name (and prefix of the per-file sh_tests).
  srcs: test files (.tile, .mlir, ...), in this package.
  tool: label of the binary under test.
  data: extra runfiles (inputs the RUN lines read).
  tools: extra binary labels, substituted by their short names too.
  size, tags, timeout, visibility...: passed to every sh_test (and tags to the suite).
"""

_RUNNER = Label("//third_party:run_filecheck.sh")
_FILECHECK = Label("@llvm//:FileCheck")

def _short_name(label):
    """'//tools:tile-opt' -> 'tile-opt'; '//tools/tile-opt' -> 'tile-opt'."""
    if type(label) == "Label":
        name = label.name
    elif ":" in label:
        name = label.split(":")[-1]
    else:
        name = label.rstrip("/").split("/")[-1]
    return name.split("/")[-1]

def _stem(path):
    base = path.split(":")[-1].split("/")[-1]
    if "." in base:
        base = base[:base.rindex(".")]
    out = ""
    for c in base.elems():
        out += c if (c.isalnum() or c in "_-") else "_"
    return out

def filecheck_test(name, srcs, tool, data = [], tools = [], size = "small", tags = [], **kwargs):
    if not srcs:
        fail("filecheck_test %s: srcs is empty" % name)
    all_tools = [tool] + list(tools)
    tool_args = []
    for t in all_tools:
        tool_args += ["--tool", "%s=$(rootpath %s)" % (_short_name(t), t)]
    tool_args += ["--tool", "FileCheck=$(rootpath %s)" % str(_FILECHECK)]

    tests = []
    seen = {}
    for src in srcs:
        test_name = "%s_%s" % (name, _stem(src))
        if test_name in seen:
            fail("filecheck_test %s: two srcs map to test name %s" % (name, test_name))
        seen[test_name] = True
        native.sh_test(
            name = test_name,
            srcs = [_RUNNER],
            args = tool_args + ["--", "$(rootpath %s)" % src],
            data = [src, _FILECHECK] + all_tools + data,
            size = size,
            tags = tags,
            **kwargs
        )
        tests.append(":" + test_name)

    native.test_suite(
        name = name,
        tests = tests,
        tags = tags,
        visibility = kwargs.get("visibility"),
    )
