#!/usr/bin/env bash
# tile-matrix's lookups timed as README.md writes them (the default build, no -c opt): query and
# render --check, first with an empty code-hash cache (every record shown has its code
# generated to judge staleness) and then with the cache a first render --check filled.
# Usage, from the repository root: [RECORDS=FILE] bash bench/tile_matrix_lookup.sh [BINARY]
# (default: bazel-bin/tools/tile_matrix/tile-matrix after `bazel build //tools:tile-matrix`).
# RECORDS: a records file to judge instead of the committed one, e.g. one that `run --out` wrote
# with the same build, so that no record is stale by its kernel or lowering and every record
# shown needs its generated code compared (the slowest case; render --check then reports
# differing pages, which does not change what it computes).
set -u
BIN=${1:-}
if [[ -z $BIN ]]; then
  bazel build //tools:tile-matrix >/dev/null 2>&1 || { echo "build failed" >&2; exit 1; }
  BIN=bazel-bin/tools/tile_matrix/tile-matrix
fi
export BUILD_WORKSPACE_DIRECTORY=$PWD  # what `bazel run` sets: the committed records and pages
TILE_CACHE_DIR=$(mktemp -d)
export TILE_CACHE_DIR
trap 'rm -rf "$TILE_CACHE_DIR"' EXIT

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- tools/tile_matrix || echo '+changes to tools/tile_matrix')"
echo "# $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) threads; binary $BIN; records ${RECORDS:-committed}"
TIMEFORMAT=%R
timed() {  # label, then the command's arguments
  local label=$1
  shift
  local seconds
  seconds=$( { time "$BIN" "$@" ${RECORDS:+--records=$RECORDS} >/dev/null 2>&1; } 2>&1 )
  printf '%-8s %-50s %8s s\n' "$label" "$*" "$seconds"
}
for args in "query --op=nothing" "query --op=gemm_f16 --target=cuda:sm_90a" \
            "query --op=gemm --brief"; do
  rm -rf "$TILE_CACHE_DIR"/*
  timed empty $args
done
rm -rf "$TILE_CACHE_DIR"/*
timed empty render --check
for args in "query --op=nothing" "query --op=gemm_f16 --target=cuda:sm_90a" \
            "query --op=gemm --brief" "render --check"; do
  timed filled $args
done
