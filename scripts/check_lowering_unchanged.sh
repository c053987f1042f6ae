#!/usr/bin/env bash
# Shows that a refactoring left lowering alone: snapshots what tile-opt --target=T (lowered IR)
# and tile-translate --target=T (generated source) print for every .tile under ops/ and
# testdata/ on every target, and compares two snapshots byte for byte. A file that fails to
# parse or lower is kept too: its error text and exit status are part of the snapshot.
#
#   scripts/check_lowering_unchanged.sh snapshot BIN_DIR OUT_DIR
#       BIN_DIR holds tile-opt and tile-translate (copy them out of
#       bazel-out/k8-fastbuild/bin/tools/ first: bazel-bin moves with every build).
#   scripts/check_lowering_unchanged.sh compare OLD_DIR NEW_DIR [EXCLUDE_REGEX]
#       exit 0 when every file is identical; EXCLUDE_REGEX leaves out snapshot files whose
#       name matches (e.g. a kernel whose output another change alters on purpose).
#
# Files with '// -----' parts go through tile-opt with --split-input-file, and tile-translate
# (which reads one module) once per part: the parts are written under OUT_DIR/parts/ and named
# relative to it, so that messages naming them agree between snapshots.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

TARGETS=(cpu cuda:sm_80 cuda:sm_90a hip:gfx90a metal)

snapshot_one() {  # BIN_DIR OUT_DIR FILE TARGET
  local bin=$1 out=$2 file=$3 target=$4
  local stem
  stem="${file//\//__}.${target//:/_}"
  local split=()
  if grep -q -- '^// -----' "$file"; then split=(--split-input-file); fi
  local rc=0
  "$bin/tile-opt" "$file" --target="$target" "${split[@]}" \
    >"$out/$stem.opt.out" 2>"$out/$stem.opt.err" || rc=$?
  echo "$rc" >"$out/$stem.opt.rc"
  if [[ ${#split[@]} == 0 ]]; then
    translate_one "$bin" "$out" "$file" "$target" "$stem" .
  else
    local part
    for part in $(cd "$out/parts" && ls -- "${file//\//__}".part*.tile); do
      translate_one "$bin" "$out" "$part" "$target" "${part%.tile}.${target//:/_}" "$out/parts"
    done
  fi
}

translate_one() {  # BIN_DIR OUT_DIR FILE TARGET STEM DIR
  local bin=$1 out=$2 file=$3 target=$4 stem=$5 dir=$6
  local rc=0
  (cd "$dir" && "$bin/tile-translate" "$file" --target="$target") \
    >"$out/$stem.translate.out" 2>"$out/$stem.translate.err" || rc=$?
  echo "$rc" >"$out/$stem.translate.rc"
}
export -f snapshot_one translate_one

case "${1:-}" in
  snapshot)
    [[ $# -eq 3 ]] || { echo "usage: $0 snapshot BIN_DIR OUT_DIR" >&2; exit 2; }
    bin=$(cd "$2" && pwd)
    mkdir -p "$3"
    out=$(cd "$3" && pwd)
    for tool in tile-opt tile-translate; do
      [[ -x "$bin/$tool" ]] || { echo "$0: no executable $bin/$tool" >&2; exit 2; }
    done
    files=$(find ops testdata -name '*.tile' | LC_ALL=C sort)
    mkdir -p "$out/parts"
    for f in $files; do
      if grep -q -- '^// -----' "$f"; then
        awk -v base="$out/parts/${f//\//__}" \
          'BEGIN { n = 1 } /^\/\/ -----/ { n++; next } { print > (base ".part" n ".tile") }' "$f"
      fi
    done
    for f in $files; do
      for t in "${TARGETS[@]}"; do echo "$f $t"; done
    done | xargs -P "${JOBS:-2}" -n 2 bash -c 'snapshot_one "$0" "$1" "$2" "$3"' "$bin" "$out"
    n_files=$(echo "$files" | wc -l)
    n_runs=$(ls "$out"/*.rc | wc -l)
    n_failed=$(grep -L '^0$' "$out"/*.rc | wc -l)
    echo "snapshot: $n_files files x ${#TARGETS[@]} targets, $n_runs runs into $out" \
      "($n_failed ended with an error, kept as text)"
    ;;
  compare)
    [[ $# -ge 3 ]] || { echo "usage: $0 compare OLD_DIR NEW_DIR [EXCLUDE_REGEX]" >&2; exit 2; }
    exclude=${4:-'^$'}
    status=0
    compared=0
    excluded=0
    while read -r name; do
      if [[ "$name" =~ $exclude ]]; then excluded=$((excluded + 1)); continue; fi
      if [[ ! -e "$2/$name" || ! -e "$3/$name" ]]; then
        echo "only in one snapshot: $name"
        status=1
        continue
      fi
      compared=$((compared + 1))
      if ! cmp -s "$2/$name" "$3/$name"; then
        echo "differs: $name"
        status=1
      fi
    done < <( (cd "$2" && find . -type f; cd "$3" && find . -type f) | sed 's|^\./||' | LC_ALL=C sort -u)
    echo "compare: $compared snapshot files compared, $excluded excluded;" \
      "$([[ $status == 0 ]] && echo identical || echo DIFFERENT)"
    exit "$status"
    ;;
  *)
    sed -n '2,15p' "$0" >&2
    exit 2
    ;;
esac
