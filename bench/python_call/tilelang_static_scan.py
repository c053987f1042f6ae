"""Which of TileLang's example files use a name tile lacks: a static scan (no run, no GPU) of
every example's `tilelang` imports and `T.<name>` attributes against this package, and of the
third-party libraries it imports (tvm, fla, einops, flash_attn, triton, ...). It tells the next
construct worth building and which programs are worth a GPU run; tilelang_programs.txt lists
those run.

    PYTHONPATH=python:bazel-bin/python python3 bench/python_call/tilelang_static_scan.py \\
        TILELANG_EXAMPLES_DIR [--missing-only]

TILELANG_EXAMPLES_DIR is a TileLang checkout's examples/ (a work tree: `git -C MIRROR archive
HEAD examples | tar -x -C DIR` makes one from a bare mirror)."""

import ast
import collections
import importlib
import os
import sys

THIRD_PARTY = ("tvm", "fla", "triton", "scipy", "einops", "flash_attn", "vllm", "transformers",
               "cuda", "tilelang_kernels")


def _module_problems(node, problems):
    modules = ([a.name for a in node.names] if isinstance(node, ast.Import)
               else [node.module or ""])
    for module in modules:
        top = module.split(".")[0]
        if top in THIRD_PARTY:
            problems.add(f"needs {top}")
        if top != "tilelang":
            continue
        ours = "tile" + module[len("tilelang"):]
        try:
            imported = importlib.import_module(ours)
        except Exception:  # pylint: disable=broad-except
            problems.add(f"import {module}")
            continue
        for alias in node.names if isinstance(node, ast.ImportFrom) else ():
            if alias.name == "*" or hasattr(imported, alias.name):
                continue
            try:
                importlib.import_module(f"{ours}.{alias.name}")
            except Exception:  # pylint: disable=broad-except
                problems.add(f"{module}.{alias.name}")


def scan(path, language):
    """The names `path` uses that tile lacks (a set of strings), or None if it is not a
    TileLang program."""
    source = open(path, encoding="utf-8").read()
    if "tilelang" not in source:
        return None
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    problems = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            _module_problems(node, problems)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                node.value.id == "T":
            if not hasattr(language, node.attr):
                problems.add(f"T.{node.attr}")
            elif node.attr in language._unsupported.REFUSED:  # pylint: disable=protected-access
                problems.add(f"T.{node.attr} (refused)")
    return problems


def main(root, missing_only=False):
    import tile.language as T  # pylint: disable=import-outside-toplevel
    rows, counts = [], collections.Counter()
    for directory, _, files in sorted(os.walk(root)):
        for name in sorted(files):
            if not name.endswith(".py") or name.startswith("test_") or name == "__init__.py":
                continue
            path = os.path.join(directory, name)
            problems = scan(path, T)
            if problems is None:
                continue
            rows.append((os.path.relpath(path, root), sorted(problems)))
            counts.update(problems)
    clean = [r for r in rows if not r[1]]
    print(f"{len(rows)} TileLang files; {len(clean)} use no name tile lacks")
    for path, problems in rows:
        if problems or not missing_only:
            print(f"{len(problems)} {path} {' '.join(problems)}")
    print("\nmissing, by the number of files using it:")
    for problem, count in counts.most_common():
        print(f"{count:4d} {problem}")


if __name__ == "__main__":
    main(sys.argv[1], "--missing-only" in sys.argv[2:])
