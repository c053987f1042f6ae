#!/usr/bin/env bash
# Copies TileLang's example programs listed in bench/python_call/tilelang_programs.txt from a
# TileLang checkout (git directory or work tree) into .devrun/tilelang_programs/, for
# tilelang_programs_on_gpu.py on the GPU machine. They are TileLang's files, run there as a test
# of this package; they are not part of this repository.
#   scripts/gpu/pack_tilelang_programs.sh /path/to/tilelang [REVISION]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
SOURCE=${1:?usage: pack_tilelang_programs.sh TILELANG_CHECKOUT [REVISION]}
REVISION=${2:-HEAD}
OUT=.devrun/tilelang_programs
rm -rf "$OUT" && mkdir -p "$OUT"
# A line is a path (then options), or `support: PATH`: either way the path is copied.
grep -v '^#' bench/python_call/tilelang_programs.txt | while read -r first second _; do
  path=$first
  [[ $first == support: ]] && path=$second
  [ -n "$path" ] || continue
  mkdir -p "$OUT/$(dirname "$path")"
  git -C "$SOURCE" show "$REVISION:$path" > "$OUT/$path"
done
git -C "$SOURCE" rev-parse "$REVISION" > "$OUT/REVISION"
echo "packed $(find "$OUT" -name '*.py' | wc -l) programs of $(cat "$OUT/REVISION")"
