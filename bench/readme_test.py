"""README.md and bench/README.md against bench/results/ and the checkout: the run they call the
latest is the newest GPU run there, every figure they quote from a run is that run's, and the
commands README.md shows write nothing into the checkout.

The rules, so that a number copied by hand cannot drift from its evidence:
- GPU runs are the folders bench/results/<gpu>_<date>_run<N>; the newest has the largest N.
  README.md's "The latest run is `bench/results/<run>/`" and bench/README.md's first link after
  "Latest" must name it.
- A figure is a number followed by a unit (TFLOP/s, GB/s, µs), or several joined by " / "
  before one ("750 / 737 TFLOP/s"). It is quoted from the run named nearest before it or
  nearest after it in the same paragraph (`bench/results/<run>` or `results/<run>/`: README.md
  puts the reference after the figures, bench/README.md's links come before them); a
  paragraph that names no run quotes none. The number, at the precision written, must be among
  the numbers of one of those two runs' figures.json (values and the numbers inside its
  notes), README.md, or the file of the run that the reference names
  (`bench/results/<run>/call1/python.log`).
- In README.md's blocks of commands (fences without a language, or sh/bash), a command's output (`> FILE`, `-o FILE`, `--out NAME=FILE`,
  `--out=FILE`) goes to a path that starts with `$` (a scratch or user folder such as `$S/k.cu`)
  or `/`; a relative path would land in the checkout, where the commands run. `FILE` as a
  placeholder is allowed.

Run by //bench:readme_test with the repository's files as data; the paths given on
the command line (README.md, bench/README.md) are read from the runfiles root.
"""

import json
import os
import re
import sys

RESULTS = "bench/results"
RUN_FOLDER = re.compile(r"^[a-z0-9]+_\d{4}-\d{2}-\d{2}_run(\d+)$")
REF = re.compile(r"(?:bench/)?results/([A-Za-z0-9_-][A-Za-z0-9_./-]*[A-Za-z0-9_-])")
UNIT = r"(?:TFLOP/s|GB/s|µs)"
FIGURE = re.compile(r"(\d[\d,]*(?:\.\d+)?(?:\s*/\s*\d[\d,]*(?:\.\d+)?)*)\s*" + UNIT)
NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?")


def gpu_runs():
    runs = {}
    for name in os.listdir(RESULTS):
        match = RUN_FOLDER.match(name)
        if match and os.path.isdir(os.path.join(RESULTS, name)):
            runs[name] = int(match.group(1))
    return runs


def paragraphs(text):
    """Blank-line separated blocks, each a list item of its own: (first line number, text)."""
    blocks, current, start = [], [], 1
    for number, line in enumerate(text.split("\n"), 1):
        starts_item = re.match(r"^\s*(?:[-*]|\d+\.)\s", line) is not None
        if not line.strip() or starts_item:
            if current:
                blocks.append((start, " ".join(current)))
            current = [line] if line.strip() else []
            start = number
            continue
        if not current:
            start = number
        current.append(line)
    if current:
        blocks.append((start, " ".join(current)))
    return blocks


def numbers_of(value, into):
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, (int, float)):
        into.append(float(value))
    elif isinstance(value, str):
        for token in NUMBER.findall(value):
            try:
                into.append(float(token.replace(",", "")))
            except ValueError:
                pass
    elif isinstance(value, list):
        for item in value:
            numbers_of(item, into)
    elif isinstance(value, dict):
        for item in value.values():
            numbers_of(item, into)


def source_numbers(ref, cache={}):
    """The numbers of what `ref` (a path under bench/results) names: a folder's figures.json and
    README.md; a file, with the figures.json and README.md of the folder it lies in. None when
    none of them exists."""
    if ref not in cache:
        top = ref.split("/")[0]
        paths = [os.path.join(RESULTS, top, name) for name in ("figures.json", "README.md")]
        if ref != top:
            paths.append(os.path.join(RESULTS, ref))
        elif os.path.isfile(os.path.join(RESULTS, ref)):
            paths = [os.path.join(RESULTS, ref)]
        present = [path for path in paths if os.path.isfile(path)]
        found = []
        for path in present:
            with open(path, encoding="utf-8", errors="replace") as f:
                numbers_of(json.load(f) if path.endswith(".json") else f.read(), found)
        cache[ref] = found if present else None
    return cache[ref]


def matches(written, numbers):
    digits = len(written.split(".")[1]) if "." in written else 0
    value = float(written.replace(",", ""))
    return any(abs(round(n, digits) - value) < 0.5 * 10**-digits + 1e-9 for n in numbers)


def check_figures(path, text, errors):
    for line, block in paragraphs(text):
        refs = [(m.start(), m.group(1)) for m in REF.finditer(block)]
        if not refs:
            continue
        for figure in FIGURE.finditer(block):
            after = [ref for at, ref in refs if at > figure.start()][:1]
            before = [ref for at, ref in refs if at < figure.start()][-1:]
            candidates = before + after
            where = f"{path}, paragraph at line {line}"
            sources = [source_numbers(ref) for ref in candidates]
            names = " or ".join(candidates)
            if all(numbers is None for numbers in sources):
                errors.append(f"{where}: quotes {figure.group(0)!r} from {names}, "
                              f"which has no figures.json or README.md in {RESULTS}")
                continue
            numbers = [n for found in sources if found for n in found]
            for written in re.split(r"\s*/\s*", figure.group(1)):
                if not matches(written, numbers):
                    errors.append(f"{where}: {written} (in {figure.group(0)!r}) is a figure of "
                                  f"neither {names} (figures.json, README.md, the file named)")


OUTPUT = re.compile(r"(?:>|\s-o|--out[ =](?:[A-Za-z_]\w*=)?)\s*([^\s`|;&)]+)")


def check_scratch(path, text, errors):
    in_block = False  # inside a block of commands: a fence with no language, sh or bash
    fenced = False
    for number, line in enumerate(text.split("\n"), 1):
        if line.startswith("```"):
            fenced = not fenced
            in_block = fenced and line.strip("`").strip() in ("", "sh", "bash", "shell")
            continue
        if not in_block:
            continue
        command = line.split("#")[0]
        for match in OUTPUT.finditer(command):
            target = match.group(1)
            if target.startswith(("$", "/", "&")) or target in ("FILE", "FILE..."):
                continue
            errors.append(f"{path}:{number}: writes {target!r} relative to where the command "
                          f"runs, inside the checkout; write to a scratch folder ($S/...)")


def check_latest(path, text, pattern, newest, errors):
    match = re.search(pattern, text, re.S)
    if match is None:
        errors.append(f"{path}: no sentence names the latest run (expected {pattern!r})")
    elif match.group(1) != newest:
        errors.append(f"{path}: names {match.group(1)} as the latest run; the newest in "
                      f"{RESULTS} is {newest}")


def main():
    runs = gpu_runs()
    newest = max(runs, key=runs.get)
    errors = []
    with open("README.md", encoding="utf-8") as f:
        readme = f.read()
    with open("bench/README.md", encoding="utf-8") as f:
        bench = f.read()
    check_latest("README.md", readme, r"The latest run is\s+`bench/results/([^/`]+)/?`",
                 newest, errors)
    check_latest("bench/README.md", bench, r"Latest\b[^\[]*\[[^\]]*\]\(results/([^/)]+)/", newest,
                 errors)
    check_scratch("README.md", readme, errors)
    check_figures("README.md", readme, errors)
    check_figures("bench/README.md", bench, errors)
    for error in errors:
        print(error)
    print(f"{len(errors)} problems; newest GPU run: {newest}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
