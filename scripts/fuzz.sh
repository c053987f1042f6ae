#!/usr/bin/env bash
# Builds the libFuzzer targets (//fuzz, --config=fuzz: clang-16, ASan, UBSan)
# and runs each for SECONDS (default 30) on its corpus: seeds made from
# testdata/ and ops/ (//fuzz:make_seeds), the kept corpora and reproducers in
# fuzz/corpus/<target>/, and what earlier runs added when FUZZ_CORPUS_DIR is
# set. Exit status 1 when any target crashes, hangs, leaks or fails a check;
# the input that did is saved and its path printed.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]      targets: text_parser proto_reader ...
#
# Environment: FUZZ_CORPUS_DIR (a folder kept between runs; default a fresh
# temporary one, removed when every target passed), FUZZ_TIMEOUT (seconds one input may take, default 20),
# FUZZ_BAZEL_FLAGS (more flags for bazel build, e.g. --local_cpu_resources=1),
# FUZZ_ARGS (more libFuzzer flags).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# python_call is fuzz/python_call_fuzzer.py under atheris (scripts/setup.sh installs it) over
# the default build's libtile.so and _launch.abi3.so; the others are //fuzz's libFuzzer binaries.
ALL_TARGETS=(text_parser proto_reader json_reader verifier cpu_pipeline gpu_pipelines cache_entry
  kernel_args python_call)
SECONDS_PER_TARGET=${1:-30}
shift || true
TARGETS=("$@")
[[ ${#TARGETS[@]} -gt 0 ]] || TARGETS=("${ALL_TARGETS[@]}")
for t in "${TARGETS[@]}"; do
  [[ " ${ALL_TARGETS[*]} " == *" $t "* ]] || { echo "fuzz: unknown target '$t'; one of: ${ALL_TARGETS[*]}" >&2; exit 2; }
done

read -r -a BAZEL_FLAGS <<< "${FUZZ_BAZEL_FLAGS:-}"
BUILD_TARGETS=(//fuzz:make_seeds)
for t in "${TARGETS[@]}"; do
  [[ $t == python_call ]] || BUILD_TARGETS+=("//fuzz:${t}_fuzzer")
done
echo "fuzz: bazel build --config=fuzz ${BUILD_TARGETS[*]} ${BAZEL_FLAGS[*]}"
bazel build --config=fuzz "${BAZEL_FLAGS[@]}" "${BUILD_TARGETS[@]}"
BIN=$(bazel info --config=fuzz "${BAZEL_FLAGS[@]}" bazel-bin 2>/dev/null)/fuzz
if [[ " ${TARGETS[*]} " == *" python_call "* ]]; then
  echo "fuzz: bazel build //capi:libtile.so //python:_launch.abi3.so ${BAZEL_FLAGS[*]}"
  bazel build "${BAZEL_FLAGS[@]}" //capi:libtile.so //python:_launch.abi3.so
  PY_BIN=$(bazel info "${BAZEL_FLAGS[@]}" bazel-bin 2>/dev/null)
fi

WORK=${FUZZ_CORPUS_DIR:-}
KEEP_WORK=1
if [[ -z "$WORK" ]]; then
  WORK=$(mktemp -d -t tile-fuzz.XXXXXX)
  KEEP_WORK=0
fi
mkdir -p "$WORK/seeds" "$WORK/artifacts"
"$BIN/make_seeds" "$WORK/seeds" testdata ops

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
read -r -a EXTRA <<< "${FUZZ_ARGS:-}"
failed=()
summary=()
for t in "${TARGETS[@]}"; do
  corpus="$WORK/corpus/$t"
  mkdir -p "$corpus"
  kept=()
  [[ -d "fuzz/corpus/$t" ]] && kept=("fuzz/corpus/$t")
  log="$WORK/$t.log"
  echo "fuzz: $t for ${SECONDS_PER_TARGET}s (log $log)"
  status=0
  fuzzer=("$BIN/${t}_fuzzer")
  if [[ $t == python_call ]]; then
    fuzzer=(env TILE_LIBRARY="$PY_BIN/capi/libtile.so"
      TILE_LAUNCH_EXTENSION="$PY_BIN/python/_launch.abi3.so" PYTHONPATH="$PWD/python"
      TILE_CACHE_DIR="$WORK/tile-cache" /usr/bin/python3 fuzz/python_call_fuzzer.py)
  fi
  mkdir -p "$WORK/seeds/$t"
  "${fuzzer[@]}" -max_total_time="$SECONDS_PER_TARGET" -timeout="${FUZZ_TIMEOUT:-20}" \
    -print_final_stats=1 -artifact_prefix="$WORK/artifacts/$t-" "${EXTRA[@]}" \
    "$corpus" "$WORK/seeds/$t" "${kept[@]}" > "$log" 2>&1 || status=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<< "$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<< "$last")
  corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p' <<< "$last")
  line="$t: execs ${execs:-?} cov ${cov:-?} ft ${ft:-?} corpus ${corp:-?}"
  if [[ $status -ne 0 ]]; then
    line+=" FAILED (exit $status)"
    failed+=("$t")
    grep -E 'ERROR: |fuzz check failed|SUMMARY: |Test unit written' "$log" | head -5 | sed 's/^/fuzz:   /'
  fi
  echo "fuzz: $line"
  summary+=("$line")
done

echo "fuzz: summary (${SECONDS_PER_TARGET}s each)"
printf 'fuzz:   %s\n' "${summary[@]}"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz: FAILED: ${failed[*]}; reproducers: $WORK/artifacts/" >&2
  exit 1
fi
echo "fuzz: all ${#TARGETS[@]} targets passed"
[[ $KEEP_WORK -eq 1 ]] || rm -rf "$WORK"
