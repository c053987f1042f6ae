#!/usr/bin/env bash
# What it takes to make persistent warp-specialized kernels (cuda:sm_90a{persistent=on}) the
# default: run on the GPU machine with the bundle (carry .devrun; OUT set by the device tool):
#   bash scripts/gpu/persistent_check.sh
# The suite at default and ragged shapes; gemms at 128x256x64_s4 and the b128 attention beside
# cuBLAS/cuDNN (one tile per block, the default), then each with {persistent=on} beside
# {persistent=off} in the same call; correctness with few SMs named ({sms=1,2,7}: every block
# loops over several tiles) and under racecheck and memcheck; the Python package (host time per
# call also with the GPU kept out: call_timing.host_us).
export BENCH_CASES="gemm_bf16_to_bf16@128x256x64_s4:M=4096,N=4096,K=4096 gemm_f16_to_f16@128x256x64_s4:M=4096,N=4096,K=4096 \
gemm_bf16_to_bf16@128x256x64_s4:M=8192,N=8192,K=8192 gemm_f16_to_f16@128x256x64_s4:M=8192,N=8192,K=8192 \
flash_attn_d128_b128:BATCH=4,HEADS=32,SEQ=4096 flash_attn_d128_b128_causal:BATCH=4,HEADS=32,SEQ=4096"
export STATIC_CHECK_CASES="gemm_bf16_to_bf16@128x256x64_s4:M=4000,N=2048,K=520 gemm_f16_to_f16@128x256x64_s4:M=1000,N=776,K=336"
export SEED_CASES=""
export SANITIZE_OPS="flash_attn_d128_b128"
export RACECHECK_OPS="flash_attn_d128_b128"
export SKIP_MATRIX=1
RUN_BUDGET_S=${RUN_BUDGET_S:-420} bash scripts/gpu/run_on_device.sh
source scripts/gpu/env.sh
T=.devrun/bin/tile-run-gpu
{
  for sms in 1 2 7; do
    for op in gemm_bf16_to_bf16 gemm_f16_to_f16; do
      timeout 60 $T .devrun/ops/$op.tile "--target=cuda:sm_90a{persistent=on,sms=$sms}" --config=128x256x64_s4 \
        --check --seed=$sms --shapes=M=1000,N=1024,K=520 2>&1 | grep -E "check|error|Error" | head -3
    done
    timeout 60 $T .devrun/ops/flash_attn_d128_b128.tile "--target=cuda:sm_90a{persistent=on,sms=$sms}" --check \
      --seed=$sms --shapes=BATCH=2,HEADS=3,SEQ=1000 2>&1 | grep -E "check|error|Error" | head -3
  done
  for tool in racecheck memcheck; do
    timeout 120 compute-sanitizer --tool $tool --error-exitcode=9 $T .devrun/ops/gemm_bf16_to_bf16.tile \
      "--target=cuda:sm_90a{persistent=on,sms=2}" --config=128x256x64_s4 --check --shapes=M=300,N=512,K=200 2>&1 | tail -3
    echo "gemm 128x256 {persistent=on,sms=2} $tool exit ${PIPESTATUS[0]}"
    timeout 150 compute-sanitizer --tool $tool --error-exitcode=9 $T .devrun/ops/flash_attn_d128_b128.tile \
      "--target=cuda:sm_90a{persistent=on,sms=2}" --check --shapes=BATCH=1,HEADS=2,SEQ=300 2>&1 | tail -3
    echo "attention b128 {persistent=on,sms=2} $tool exit ${PIPESTATUS[0]}"
  done
} 2>&1 | tee "$OUT/persistent_checks.log"
{
  for shapes in M=4096,N=4096,K=4096 M=8192,N=8192,K=8192; do
    for op in gemm_bf16_to_bf16 gemm_f16_to_f16; do
      for t in cuda "cuda:sm_90a{persistent=on}"; do
        echo "== $op $shapes $t"
        timeout 60 $T .devrun/ops/$op.tile "--target=$t" --config=128x256x64_s4 --bench --static-shapes \
          --iters=20 --warmup=3 --seed=4 --shapes=$shapes 2>&1 | grep -E "^  bench|rror"
      done
    done
  done
  for op in flash_attn_d128_b128 flash_attn_d128_b128_causal; do
    for t in cuda "cuda:sm_90a{persistent=on}"; do
      echo "== $op $t"
      timeout 60 $T .devrun/ops/$op.tile "--target=$t" --bench --static-shapes --iters=20 --warmup=3 \
        --seed=4 --shapes=BATCH=4,HEADS=32,SEQ=4096 2>&1 | grep -E "^  bench|rror"
    done
  done
} 2>&1 | tee "$OUT/persistent_bench.log"
