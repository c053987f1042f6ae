#!/usr/bin/env bash
# Runs ON the GPU machine, from the repository root, with the bundle that
# build_bundle.sh made in .devrun/ (carried along) and $OUT set: the CUDA
# device's tests, the operator suite at default and ragged shapes, the memory
# checker, the gemm kernel's SASS, the launch-overhead benchmark, our
# benchmark figures and the peers' (in the same run, so ratios compare like
# with like), the support matrix's CUDA records and the JIT latency. Logs go to $OUT (at
# most 8 files come back); a summary table is
# printed last. Each step has a time limit and the whole run a budget
# (RUN_BUDGET_S, default 480 s): a step that no longer fits is skipped.
# Knobs: SANITIZE_OPS, RACECHECK_OPS (entries OP, ragged shapes, or OP:default), SANITIZE_ALL=1, SEED_CASES, SEEDS, BENCH_CASES, SKIP_PEERS=1,
# SKIP_SUITE=1 (no suite runs), SKIP_MATRIX=1, SKIP_PYTHON=1 (no Python package run), BENCH_STATIC=0 (bench the dynamic-shape binaries instead of ones specialized with
# --static-shapes), STATIC_CHECK_CASES (OP:SHAPES checked with --static-shapes). A case may
# name a config of the operator's space: OP@CONFIG:SHAPES (tile-run --config).
# See scripts/gpu/README.md.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

: "${OUT:?run_on_device.sh: set OUT to the folder for the logs}"
export OUT PYTHONUNBUFFERED=1
BUNDLE=.devrun
BIN=$BUNDLE/bin
OPS=$BUNDLE/ops
RUN_BUDGET_S=${RUN_BUDGET_S:-480}
SANITIZE_OPS=${SANITIZE_OPS-"add_f32 softmax_f16 layernorm_bf16 gemm_f16 flash_attn_d64_causal gemv_splitk_f16 \
softmax_row_f16:default layernorm_row_bf16:default"}
RACECHECK_OPS=${RACECHECK_OPS-"gemm_f16 softmax_f16 gemv_splitk_f16 softmax_row_f16:default layernorm_row_bf16:default"}
SANITIZE_ALL=${SANITIZE_ALL:-0}
SKIP_PEERS=${SKIP_PEERS:-0}
# FILE:SHAPES pairs at sizes that fill the H200, beside the peers' figures.
BENCH_CASES=${BENCH_CASES-"gemm_f16:M=4096,N=4096,K=4096 gemm_bf16:M=4096,N=4096,K=4096 \
add_f32:M=8192,N=8192 softmax_f16:M=16384,N=8192 layernorm_bf16:M=16384,N=8192 \
rmsnorm_f16:M=16384,N=8192 softmax_row_f16:M=16384,N=8192 layernorm_row_bf16:M=16384,N=8192 \
rmsnorm_row_f16:M=16384,N=8192 flash_attn_d128:BATCH=4,HEADS=32,SEQ=4096 flash_attn_d128_causal:BATCH=4,HEADS=32,SEQ=4096 \
flash_attn_d128_b128:BATCH=4,HEADS=32,SEQ=4096 flash_attn_d128_b128_causal:BATCH=4,HEADS=32,SEQ=4096"}
BENCH_STATIC=${BENCH_STATIC:-1}
# OP:SHAPES checked once per seed of $SEEDS (dynamic-shape binaries).
SEED_CASES=${SEED_CASES-"gemv_splitk_f16:N=4096,K=4096 gemv_splitk_f16:N=4097,K=4095"}
SEEDS=${SEEDS-"1 2 3 4 5"}
# Specialized binaries checked against the reference at shapes small enough for the host's
# float64 reference, then under memcheck.
STATIC_CHECK_CASES=${STATIC_CHECK_CASES-"gemm_f16:M=1024,N=1024,K=1024 \
gemm_bf16:M=512,N=768,K=1024 gemm_f16_tn:M=512,N=512,K=512 gemm_f16_nt:M=512,N=512,K=512"}
CUBIN_DIR=/tmp/tile-cubin
BENCH_CUBIN_DIR=/tmp/tile-bench-cubin
RUN_LOG=$OUT/run.log

[[ -x $BIN/tile-run-gpu ]] || {
  echo "run_on_device.sh: no $BIN/tile-run-gpu; run scripts/gpu/build_bundle.sh and carry .devrun" >&2
  exit 2
}

# The toolkit on PATH, NVRTC found, the bundle's libraries first (scripts/gpu/env.sh).
source scripts/gpu/env.sh

STEP_NAMES=()
STEP_RESULTS=()
STEP_SECONDS=()
STEP_NOTES=()

# step NAME LIMIT_S LOG COMMAND...: runs COMMAND under `timeout`, appending
# its output to LOG, unless the budget has no LIMIT_S left.
step() {
  local name=$1 limit=$2 log=$3
  shift 3
  local left=$((RUN_BUDGET_S - SECONDS))
  STEP_NAMES+=("$name")
  if ((left < limit / 2)); then
    STEP_RESULTS+=("SKIP")
    STEP_SECONDS+=(0)
    STEP_NOTES+=("no time left (${left}s of the budget)")
    echo "== $name: skipped, ${left}s left" | tee -a "$log"
    return 0
  fi
  ((limit > left)) && limit=$left
  echo "== $name (limit ${limit}s): $*" | tee -a "$log"
  local start=$SECONDS rc output
  output=$(mktemp)
  timeout --kill-after=10 "$limit" "$@" >"$output" 2>&1
  rc=$?
  cat "$output" >>"$log"
  STEP_SECONDS+=($((SECONDS - start)))
  case $rc in
    0) STEP_RESULTS+=("ok") ;;
    124 | 137) STEP_RESULTS+=("TIMEOUT") ;;
    *) STEP_RESULTS+=("FAIL($rc)") ;;
  esac
  # A failure's note is its last words, unless the caller has better.
  if ((rc == 0)); then STEP_NOTES+=(""); else STEP_NOTES+=("$(grep -v '^\s*$' "$output" | tail -1)"); fi
  rm -f "$output"
  echo "== $name: exit $rc after $((SECONDS - start))s" >>"$log"
  return 0
}
# Replaces the last step's note with $1 when that says something.
note() { [[ -n $1 ]] && STEP_NOTES[${#STEP_NOTES[@]} - 1]=$1; return 0; }

{
  echo "run_on_device.sh $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n), $(uname -r)"
  head -2 "$BUNDLE/MANIFEST" 2>/dev/null
  echo "NVRTC: ${NVRTC_DIR:-not found (kernels cannot be compiled)}"
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  nvidia-smi
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw \
    --format=csv
} >"$RUN_LOG" 2>&1
head -3 "$RUN_LOG"

TESTS_LOG=$OUT/tests.log
step "cuda_device_test" 60 "$TESTS_LOG" "$BIN/cuda_device_test"
note "$(grep -E '^\[  (PASSED|FAILED) +\] [0-9]' "$TESTS_LOG" | tr -s ' ' | paste -sd';' -)"

if [[ ${SKIP_SUITE:-0} != 1 ]]; then
  rm -rf "$CUBIN_DIR"
  step "suite, default shapes" 150 "$TESTS_LOG" \
    "$BIN/tile-run-gpu" --all --target=cuda --seed=1 --dump-cubin="$CUBIN_DIR"
  note "$(grep -E 'operators passed on' "$TESTS_LOG" | tail -1 | cut -d' ' -f1-4)"
  step "suite, ragged shapes" 150 "$TESTS_LOG" "$BIN/tile-run-gpu" --all --ragged --target=cuda --seed=2
  note "$(grep -E 'operators passed on' "$TESTS_LOG" | tail -1 | cut -d' ' -f1-4)"
fi

# The support matrix's CUDA rows: every operator run and checked on this GPU, as records
# that `tile-matrix merge` folds into docs/support_matrix/records.json back home.
if [[ -x $BIN/tile-matrix-gpu && ${SKIP_MATRIX:-0} != 1 ]]; then
  step "support matrix (cuda)" 240 "$TESTS_LOG" "$BIN/tile-matrix-gpu" run --backends=cuda --seed=1 \
    --commit="$(sed -n 's/^commit //p' "$BUNDLE/MANIFEST")" --out="$OUT/matrix_records.json"
  note "$(grep -E '^[0-9]+ records:' "$TESTS_LOG" | tail -1)"
fi

# At most 8 files come back from a device run: the launch figures go with the benchmarks.
BENCH_LOG=$OUT/bench.log
LAUNCH_LOG=$BENCH_LOG
step "launch overhead" 60 "$LAUNCH_LOG" "$BIN/launch_overhead_cuda" 10000
note "$(grep -E '^enqueue' "$LAUNCH_LOG" | awk '{print "enqueue " $(NF-1) " us, host only " $NF}')"

# The Python package on torch tensors: GEMM and attention against torch, host time per call.
if [[ -f $BUNDLE/python/examples/torch_on_gpu.py && ${SKIP_PYTHON:-0} != 1 ]]; then
  step "python on torch" 180 "$BENCH_LOG" env LD_LIBRARY_PATH="$SYSTEM_LD_LIBRARY_PATH${NVRTC_DIR:+:$NVRTC_DIR}" \
    bash scripts/gpu/run_python_on_device.sh
  note "$(grep -E '^python on torch:' "$BENCH_LOG" | tail -1 | cut -c17-)"
fi

STATIC_FLAG=()
[[ $BENCH_STATIC == 1 ]] && STATIC_FLAG=(--static-shapes)
# A case is OP:SHAPES or OP@CONFIG:SHAPES, CONFIG one of the operator's config space
# (tile-run --config).
case_op() { local op=${1%%:*}; echo "${op%%@*}"; }
case_config() {
  local op=${1%%:*}
  [[ $op == *@* ]] && echo "--config=${op#*@}"
  return 0
}
for case in $STATIC_CHECK_CASES; do
  op=$(case_op "$case")
  step "static check ${case%%:*}" 60 "$TESTS_LOG" "$BIN/tile-run-gpu" "$OPS/$op.tile" --target=cuda \
    --check --static-shapes --seed=6 --shapes="${case#*:}" $(case_config "$case")
  note "$(grep -E '^  check' "$TESTS_LOG" | tail -1 | cut -c1-100)"
done

# Values that depend on timing (atomics, races) are checked over several seeds, at sizes with
# many blocks: a clean racecheck does not prove them (it misses shared-memory atomics).
for case in $SEED_CASES; do
  op=$(case_op "$case")
  for seed in $SEEDS; do
    step "seed $seed ${case%%:*}" 60 "$TESTS_LOG" "$BIN/tile-run-gpu" "$OPS/$op.tile" --target=cuda \
      --check --seed="$seed" --shapes="${case#*:}"
    note "$(grep -E '^  check' "$TESTS_LOG" | tail -1 | cut -c1-100)"
  done
done

rm -rf "$BENCH_CUBIN_DIR"
for case in $BENCH_CASES; do
  op=$(case_op "$case")
  step "bench ${case%%:*}" 60 "$BENCH_LOG" "$BIN/tile-run-gpu" "$OPS/$op.tile" --target=cuda --bench \
    --iters=20 --warmup=3 --seed=4 --shapes="${case#*:}" "${STATIC_FLAG[@]}" \
    --dump-cubin="$BENCH_CUBIN_DIR" $(case_config "$case")
  note "$(grep -E '^  bench' "$BENCH_LOG" | tail -1 | sed 's/^  bench *//')"
done

SASS_LOG=$OUT/sass.log
GEMM_CUBIN=$BENCH_CUBIN_DIR/gemm_f16.cubin
[[ -f $GEMM_CUBIN ]] || GEMM_CUBIN=$CUBIN_DIR/gemm_f16.cubin
if [[ -f $GEMM_CUBIN ]]; then
  step "gemm_f16 SASS" 30 "$SASS_LOG" bash -c \
    "echo '$GEMM_CUBIN'; cuobjdump --dump-resource-usage '$GEMM_CUBIN' && cuobjdump --dump-sass '$GEMM_CUBIN'"
  note "$(for op in HGMMA HMMA LDSM LDGSTS LDG STS BAR; do
    printf '%s %s ' "$op" "$(grep -cE "\b$op\b|\b$op\." "$SASS_LOG")"; done)"
else
  STEP_NAMES+=("gemm_f16 SASS"); STEP_RESULTS+=("SKIP"); STEP_SECONDS+=(0)
  STEP_NOTES+=("no $GEMM_CUBIN (the suite run wrote none)")
fi

if [[ -x $BIN/jit_latency_cuda ]]; then
  step "jit latency" 120 "$BENCH_LOG" env TMPDIR=/tmp "$BIN/jit_latency_cuda" \
    --target=cuda --op=gemm_f16 --runs=5
  note "$(tail -5 "$BENCH_LOG" | tr -s ' ' | paste -sd';' - | cut -c1-118)"
fi

SAN_LOG=$OUT/sanitizer.log
# An entry OP runs at the ragged shapes; OP:default at the default ones (where a kernel takes
# paths that ragged shapes avoid, such as vector runs and cross-warp reductions).
sanitize_shapes() { [[ $1 == *:default ]] || echo "--ragged"; }
for entry in $SANITIZE_OPS; do
  op=${entry%:default}
  step "memcheck $entry" 60 "$SAN_LOG" compute-sanitizer --tool memcheck --error-exitcode 99 \
    --print-limit 20 "$BIN/tile-run-gpu" "$OPS/$op.tile" --target=cuda --check \
    $(sanitize_shapes "$entry") --seed=3
  note "$(grep -E 'ERROR SUMMARY' "$SAN_LOG" | tail -1 | sed 's/=* //')"
done
for entry in $RACECHECK_OPS; do
  op=${entry%:default}
  step "racecheck $entry" 60 "$SAN_LOG" compute-sanitizer --tool racecheck --error-exitcode 99 \
    --print-limit 20 "$BIN/tile-run-gpu" "$OPS/$op.tile" --target=cuda --check \
    $(sanitize_shapes "$entry") --seed=3
  note "$(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$SAN_LOG" | tail -1 | sed 's/=* //')"
done

PEERS_LOG=$OUT/peers.log
if [[ $SKIP_PEERS == 1 || ! -f $BUNDLE/peer_baselines.py ]]; then
  STEP_NAMES+=("peers"); STEP_RESULTS+=("SKIP"); STEP_SECONDS+=(0)
  STEP_NOTES+=("SKIP_PEERS=1 or no $BUNDLE/peer_baselines.py")
else
  step "peers" 240 "$PEERS_LOG" env LD_LIBRARY_PATH="$SYSTEM_LD_LIBRARY_PATH" \
    python3 "$BUNDLE/peer_baselines.py"
  note "$(grep -E '^(copy_bw|cublas_fp16_4096|cupy_rawkernel)' "$PEERS_LOG" |
    awk '{printf "%s %s %s; ", $1, $2, $3}')"
fi

if [[ $SANITIZE_ALL == 1 ]]; then
  step "memcheck suite (ragged)" 240 "$SAN_LOG" compute-sanitizer --tool memcheck \
    --error-exitcode 99 --print-limit 20 "$BIN/tile-run-gpu" --all --ragged --target=cuda --seed=5
  note "$(grep -E 'ERROR SUMMARY' "$SAN_LOG" | tail -1 | sed 's/=* //')"
fi

{
  echo
  echo "summary (${SECONDS}s; logs: $(cd "$OUT" && ls | paste -sd' ' -))"
  printf '%-30s %-8s %5s  %s\n' step result time notes
  for i in "${!STEP_NAMES[@]}"; do
    printf '%-30s %-8s %4ss  %s\n' "${STEP_NAMES[$i]}" "${STEP_RESULTS[$i]}" \
      "${STEP_SECONDS[$i]}" "${STEP_NOTES[$i]:0:120}"
  done
} | tee -a "$RUN_LOG"
