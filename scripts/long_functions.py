#!/usr/bin/env python3
"""Lists C++ functions longer than N lines in the given folders (issue 38: no tool god functions).

A brace-counting heuristic, not a parser: comments, string and character literals are blanked,
then a '{' that follows a parameter list outside any function body opens a function, which ends
at its matching '}'. Lambdas and local classes count toward the function that holds them. A
function's length runs from the line of its name to the line of its closing brace.

Usage: scripts/long_functions.py [--max-lines N] [--files] FOLDER_OR_FILE...
  --max-lines N  list functions longer than N lines (default 80)
  --files        also list files longer than --max-file-lines (default 400)
Exit status 0 whether or not anything is listed; 2 on a usage error.
"""

import argparse
import os
import re
import signal
import sys

SOURCE_SUFFIXES = (".cc", ".cpp", ".cxx", ".h", ".hpp")
CONTROL_WORDS = {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype"}
IDENT = re.compile(r"[A-Za-z_~][A-Za-z0-9_:~<>]*$")


def blank_comments_and_literals(text):
    """Returns text of the same length and line structure with comments and literals blanked."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not text[i - 1].isalnum()):
            open_paren = text.find("(", i + 2)
            delim = text[i + 2:open_paren]
            j = text.find(")" + delim + '"', open_paren)
            j = n if j < 0 else j + len(delim) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum() and text[i + 1:i + 2].isalnum():
                out.append(c)  # a digit separator such as 1'000
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + c if j - i >= 2 else text[i:j])
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def function_name(header):
    """The name before the parameter list of a function header, or None when it is no function."""
    header = re.sub(r"\s+", " ", header).strip()
    if header.startswith("#"):
        header = header.split("\n")[-1]
    depth, end = 0, len(header) - 1
    # The header ends with ')' optionally followed by qualifiers; find that ')'.
    tail = re.search(r"\)\s*(const|override|final|noexcept|mutable|&|&&|->[^(){}]*|\s)*$", header)
    if not tail:
        return None
    end = tail.start()
    for k in range(end, -1, -1):
        if header[k] == ")":
            depth += 1
        elif header[k] == "(":
            depth -= 1
            if depth == 0:
                before = header[:k].rstrip()
                match = IDENT.search(before)
                if not match:
                    return None
                name = match.group(0)
                if name.split("::")[-1] in CONTROL_WORDS or name in CONTROL_WORDS:
                    return None
                if re.search(r"(^|[^A-Za-z0-9_])(=|return)\s*$", before[: match.start()]):
                    return None
                return name
    return None


def functions(path):
    """Yields (name, first_line, last_line) for each function defined in the file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = blank_comments_and_literals(f.read())
    line_of = []
    line = 1
    for ch in text:
        line_of.append(line)
        if ch == "\n":
            line += 1
    # Preprocessor lines never open or close a scope we track.
    text = re.sub(r"(?m)^[ \t]*#.*$", lambda m: " " * len(m.group(0)), text)
    stack = []  # for each open brace: True when it opens a function body
    header_start = 0
    in_function = 0
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "{":
            header = text[header_start:i]
            name = None if in_function else function_name(header)
            if name is None and not in_function and re.search(r"\)\s*:", header):
                # A member initializer such as b_{x} inside a constructor's initializer list.
                if re.search(r"[A-Za-z0-9_>]\s*$", header) and not re.search(
                        r"\b(class|struct|namespace|enum|union)\b", header):
                    depth, j = 0, i
                    while j < n:
                        depth += {"{": 1, "}": -1}.get(text[j], 0)
                        if depth == 0:
                            break
                        j += 1
                    i = j + 1
                    continue
            if name:
                first = line_of[header_start + header.find(name.split("::")[0]) if name else i]
                stack.append((True, name, first))
                in_function += 1
            else:
                stack.append((False, None, None))
            header_start = i + 1
        elif c == "}":
            if stack:
                is_function, name, first = stack.pop()
                if is_function:
                    in_function -= 1
                    yield name, first, line_of[i]
            header_start = i + 1
        elif c == ";":
            header_start = i + 1
        i += 1


def source_files(roots):
    for root in roots:
        if os.path.isfile(root):
            yield root
            continue
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if not d.startswith((".", "bazel-")))
            for name in sorted(files):
                if name.endswith(SOURCE_SUFFIXES):
                    yield os.path.join(folder, name)


def main(argv):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under `| head`
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--max-lines", type=int, default=80)
    parser.add_argument("--files", action="store_true")
    parser.add_argument("--max-file-lines", type=int, default=400)
    parser.add_argument("roots", nargs="+")
    args = parser.parse_args(argv)
    for root in args.roots:
        if not os.path.exists(root):
            parser.error(f"no such file or folder: {root}")
    long_functions, long_files = [], []
    for path in source_files(args.roots):
        for name, first, last in functions(path):
            length = last - first + 1
            if length > args.max_lines:
                long_functions.append((length, f"{path}:{first}", name))
        if args.files:
            with open(path, encoding="utf-8", errors="replace") as f:
                lines = sum(1 for _ in f)
            if lines > args.max_file_lines:
                long_files.append((lines, path))
    for length, where, name in sorted(long_functions, key=lambda t: (-t[0], t[1])):
        print(f"{length:5d}  {where}  {name}")
    if args.files:
        for lines, path in sorted(long_files, key=lambda t: (-t[0], t[1])):
            print(f"{lines:5d}  {path}  (file)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
