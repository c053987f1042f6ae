"""Runs TileLang's own example programs with only their imports changed (issue 39's bar): each
file listed in tilelang_programs.txt, taken from a TileLang checkout, has `import tilelang` made
`import tile as tilelang` (and the other `tilelang` imports `tile`'s), nothing else, and runs as
its own __main__ in a subprocess with a time limit; its exit status and its output's tail are
recorded. The programs check themselves (torch.testing.assert_close, profiler.assert_allclose)
against their torch references, so exit status 0 is a pass.

    python3 tilelang_programs_on_gpu.py PROGRAMS_DIR OUT.json

PROGRAMS_DIR holds the files under their TileLang paths (scripts/gpu/pack_tilelang_programs.sh
copies them into the bundle; they are not part of this repository). A listing line is a program
path, optionally followed by `timeout=SECONDS` (else $PROGRAM_TIMEOUT, 90); a line
`support: PATH` names a file a program imports from beside it (rewritten the same way, not
run). $PROGRAMS (comma-separated parts of paths) runs only the programs it names."""

import json
import os
import re
import subprocess
import sys
import tempfile
import time

# Each rule rewrites one import line; the count of lines changed is recorded per program.
_IMPORTS = [
    (re.compile(r"^(\s*)import tilelang\s*$"), r"\1import tile as tilelang"),
    (re.compile(r"^(\s*)import tilelang as (\w+)\s*$"), r"\1import tile as \2"),
    (re.compile(r"^(\s*)import tilelang\.language as (\w+)\s*$"), r"\1import tile.language as \2"),
    (re.compile(r"^(\s*)import tilelang\.(\w+)\s*$"), r"\1import tile.\2"),
    (re.compile(r"^(\s*)from tilelang import "), r"\1from tile import "),
    (re.compile(r"^(\s*)from tilelang\.([\w.]+) import "), r"\1from tile.\2 import "),
]


def rewrite_imports(source):
    lines, changed = [], 0
    for line in source.splitlines(keepends=True):
        new = line
        for pattern, replacement in _IMPORTS:
            new = pattern.sub(replacement, line.rstrip("\n"))
            if new != line.rstrip("\n"):
                new += "\n"
                break
            new = line
        changed += new != line
        lines.append(new)
    return "".join(lines), changed


def read_listing(path, default_timeout):
    """(programs as (path, timeout), support paths) of a listing (the module doc's format)."""
    programs, support = [], []
    for line in open(path):
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] == "support:":
            support.append(words[1])
            continue
        limits = [int(w.split("=", 1)[1]) for w in words[1:] if w.startswith("timeout=")]
        programs.append((words[0], limits[0] if limits else default_timeout))
    return programs, support


def main(programs_dir, out_path, default_timeout=int(os.environ.get("PROGRAM_TIMEOUT", "90"))):
    listing = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tilelang_programs.txt")
    programs, support = read_listing(listing, default_timeout)
    # PROGRAMS="conv,gemm_fp8": only the programs whose path holds one of these (a re-run).
    wanted = [w for w in os.environ.get("PROGRAMS", "").split(",") if w]
    if wanted:
        programs = [(n, t) for n, t in programs if any(w in n for w in wanted)]
    results = []
    work = tempfile.mkdtemp(prefix="tilelang-programs-")
    for name in support:
        path = os.path.join(programs_dir, name)
        if os.path.exists(path):
            target = os.path.join(work, name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w") as handle:
                handle.write(rewrite_imports(open(path).read())[0])
    for name, timeout in programs:
        path = os.path.join(programs_dir, name)
        if not os.path.exists(path):
            results.append({"program": name, "status": "missing"})
            continue
        source, changed = rewrite_imports(open(path).read())
        target = os.path.join(work, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w") as handle:
            handle.write(source)
        began = time.time()
        try:
            run = subprocess.run([sys.executable, os.path.basename(target)],
                                 cwd=os.path.dirname(target), capture_output=True, text=True,
                                 timeout=timeout)
            status = "pass" if run.returncode == 0 else "fail"
            tail = (run.stdout + run.stderr)[-1500:]
        except subprocess.TimeoutExpired as expired:
            status, tail = "timeout", str(expired.stdout or "")[-800:]
        seconds = round(time.time() - began, 1)
        results.append({"program": name, "status": status, "import_lines_changed": changed,
                        "seconds": seconds, "tail": tail})
        print(f"{status:8s} {seconds:7.1f}s {name}", flush=True)
        if status != "pass":
            last = [l for l in tail.splitlines() if l.strip()][-3:]
            print("         " + "\n         ".join(last), flush=True)
    passed = sum(r["status"] == "pass" for r in results)
    print(f"{passed} of {len(results)} TileLang programs pass with only their imports changed")
    with open(out_path, "w") as handle:
        json.dump({"passed": passed, "total": len(results), "results": results}, handle,
                  indent=1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
