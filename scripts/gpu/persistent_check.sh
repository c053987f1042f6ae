#!/usr/bin/env bash
# What it takes to make persistent warp-specialized kernels (cuda:sm_90a{persistent=on}) and
# their TMA-store epilogue ({tma_store=on}) the default, in two device calls of at most 10
# minutes each (carry .devrun; OUT is set by the device tool):
#   bash scripts/gpu/persistent_check.sh checks   # correctness
#   bash scripts/gpu/persistent_check.sh bench    # speed, beside the peers of the same machine
# checks: the suite at default and ragged shapes (one tile per block, the default), every
#   CUDA support-matrix record re-probed (matrix_records.json, to merge with tile-matrix merge), static
#   checks of the 128x256x64_s4 gemms, the Python package (host time per call also with the GPU
#   kept out: call_timing.host_us), then {persistent=on} with few SMs named ({sms=1,2,7}: every
#   block loops over several tiles), then {tma_store=on} at 128x256x64_s3 (whose 3 stages
#   leave room for the staging tile) with one tile per block and persistent, and all of them
#   under racecheck and memcheck, the TMA stores under synccheck too (persistent_checks.log).
# bench: the peers (cuBLAS, cuDNN, ...) and the 4096^3 / 8192^3 gemms at 128x256x64_s4 with
#   and without {persistent=on} and at 128x256x64_s3 with {tma_store=on} (with and without
#   persistent), and the b128 attention with and without {persistent=on}
#   (persistent_bench.log).
# The gemms run with --static-shapes: the operator's dynamic K and N leave its row pitches
# unproved, and then sm_90a does not split it (tile-run --explain --static-shapes says so), so
# neither persistent tiles nor TMA stores would be exercised.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
PHASE=${1:-}
T=.devrun/bin/tile-run-gpu
case $PHASE in
  checks)
    BENCH_CASES="" SEED_CASES="" SKIP_PEERS=1 \
      STATIC_CHECK_CASES="gemm_bf16_to_bf16@128x256x64_s4:M=4000,N=2048,K=520 gemm_f16_to_f16@128x256x64_s4:M=1000,N=776,K=336" \
      SANITIZE_OPS="flash_attn_d128_b128" RACECHECK_OPS="flash_attn_d128_b128" \
      RUN_BUDGET_S=${RUN_BUDGET_S:-360} bash scripts/gpu/run_on_device.sh
    source scripts/gpu/env.sh
    {
      for sms in 1 2 7; do
        for op in gemm_bf16_to_bf16 gemm_f16_to_f16; do
          timeout 60 $T .devrun/ops/$op.tile "--target=cuda:sm_90a{persistent=on,sms=$sms}" \
            --config=128x256x64_s4 --static-shapes --check --explain --seed=$sms --shapes=M=1000,N=1024,K=520 2>&1 |
            grep -E "check|error|Error|warp-specialize" | head -5
        done
        timeout 60 $T .devrun/ops/flash_attn_d128_b128.tile "--target=cuda:sm_90a{persistent=on,sms=$sms}" \
          --check --seed=$sms --shapes=BATCH=2,HEADS=3,SEQ=1000 2>&1 | grep -E "check|error|Error" | head -3
      done
      for t in "cuda:sm_90a{tma_store=on}" "cuda:sm_90a{persistent=on,sms=1,tma_store=on}" \
               "cuda:sm_90a{persistent=on,sms=7,tma_store=on}"; do
        for op in gemm_bf16_to_bf16 gemm_f16_to_f16; do
          for shapes in M=1000,N=1024,K=520 M=4097,N=136,K=72 M=256,N=256,K=64; do
            echo "== $op $t $shapes"
            timeout 60 $T .devrun/ops/$op.tile "--target=$t" --config=128x256x64_s3 --static-shapes --check \
              --explain --seed=7 --shapes=$shapes 2>&1 | grep -E "check|error|Error|warp-specialize" | head -6
          done
        done
      done
      # Dynamic shapes: each dim's divisibility class is compiled in (require N % 16 == 0), so
      # the split applies where the classes prove 16-byte pitches and not where they do not.
      for t in cuda "cuda:sm_90a{persistent=on,sms=7}" "cuda:sm_90a{persistent=on,sms=3,tma_store=on}"; do
        for shapes in M=1000,N=1024,K=520 M=4097,N=136,K=72 M=999,N=1000,K=1000 M=1000,N=1001,K=520; do
          echo "== dynamic gemm_bf16_to_bf16 $t $shapes"
          timeout 60 $T .devrun/ops/gemm_bf16_to_bf16.tile "--target=$t" --config=128x256x64_s3 --check \
            --explain --seed=11 --shapes=$shapes 2>&1 | grep -E "check|error|Error|warp-specialize|divisibility" | head -6
        done
      done
      for tool in racecheck memcheck synccheck; do
        timeout 120 compute-sanitizer --tool $tool --error-exitcode=9 $T .devrun/ops/gemm_bf16_to_bf16.tile \
          "--target=cuda:sm_90a{persistent=on,sms=2,tma_store=on}" --config=128x256x64_s3 --static-shapes --check \
          --shapes=M=300,N=520,K=200 2>&1 | tail -3
        echo "gemm 128x256 {persistent=on,sms=2,tma_store=on} $tool exit ${PIPESTATUS[0]}"
      done
      for tool in racecheck memcheck; do
        timeout 120 compute-sanitizer --tool $tool --error-exitcode=9 $T .devrun/ops/gemm_bf16_to_bf16.tile \
          "--target=cuda:sm_90a{persistent=on,sms=2}" --config=128x256x64_s4 --static-shapes --check \
          --shapes=M=300,N=512,K=200 2>&1 | tail -3
        echo "gemm 128x256 {persistent=on,sms=2} $tool exit ${PIPESTATUS[0]}"
        timeout 150 compute-sanitizer --tool $tool --error-exitcode=9 $T .devrun/ops/flash_attn_d128_b128.tile \
          "--target=cuda:sm_90a{persistent=on,sms=2}" --check --shapes=BATCH=1,HEADS=2,SEQ=300 2>&1 | tail -3
        echo "attention b128 {persistent=on,sms=2} $tool exit ${PIPESTATUS[0]}"
      done
    } 2>&1 | tee "$OUT/persistent_checks.log" || true
    ;;
  bench)
    BENCH_CASES="" SEED_CASES="" STATIC_CHECK_CASES="" SANITIZE_OPS="" RACECHECK_OPS="" \
      SKIP_SUITE=1 SKIP_MATRIX=1 SKIP_PYTHON=1 RUN_BUDGET_S=${RUN_BUDGET_S:-300} \
      bash scripts/gpu/run_on_device.sh
    source scripts/gpu/env.sh
    {
      for shapes in M=4096,N=4096,K=4096 M=8192,N=8192,K=8192; do
        for op in gemm_bf16_to_bf16 gemm_f16_to_f16; do
          for t in cuda "cuda:sm_90a{persistent=on}"; do
            echo "== $op $shapes $t"
            timeout 60 $T .devrun/ops/$op.tile "--target=$t" --config=128x256x64_s4 --bench \
              --static-shapes --iters=20 --warmup=3 --seed=4 --shapes=$shapes 2>&1 | grep -E "^  bench|rror"
          done
          for t in cuda "cuda:sm_90a{tma_store=on}" "cuda:sm_90a{persistent=on,tma_store=on}"; do
            echo "== $op $shapes $t 128x256x64_s3"
            timeout 60 $T .devrun/ops/$op.tile "--target=$t" --config=128x256x64_s3 --bench \
              --static-shapes --iters=20 --warmup=3 --seed=4 --shapes=$shapes 2>&1 | grep -E "^  bench|rror"
          done
        done
      done
      # Dynamic shapes (no --static-shapes): the divisibility classes give the split.
      for op in gemm_bf16_to_bf16 gemm_f16_to_f16; do
        for t in cuda "cuda:sm_90a{persistent=on}"; do
          echo "== dynamic $op M=4096,N=4096,K=4096 $t 128x256x64_s4"
          timeout 60 $T .devrun/ops/$op.tile "--target=$t" --config=128x256x64_s4 --bench \
            --iters=20 --warmup=3 --seed=4 --shapes=M=4096,N=4096,K=4096 2>&1 | grep -E "^  bench|rror"
        done
      done
      for op in flash_attn_d128_b128 flash_attn_d128_b128_causal; do
        for t in cuda "cuda:sm_90a{persistent=on}"; do
          echo "== $op $t"
          timeout 60 $T .devrun/ops/$op.tile "--target=$t" --bench --static-shapes --iters=20 --warmup=3 \
            --seed=4 --shapes=BATCH=4,HEADS=32,SEQ=4096 2>&1 | grep -E "^  bench|rror"
        done
      done
    } 2>&1 | tee "$OUT/persistent_bench.log" || true
    ;;
  *)
    echo "usage: bash scripts/gpu/persistent_check.sh checks|bench  (on the GPU machine, OUT set)" >&2
    exit 2
    ;;
esac
