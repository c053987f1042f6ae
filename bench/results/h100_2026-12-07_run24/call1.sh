#!/bin/bash
# Run 24 call 1 (device machine; carry .devslim): the racecheck probe's variants, then the
# {pingpong=on} attention with mbarrier turns: checked against float64 at ragged shapes, under
# racecheck, synccheck and memcheck, and timed beside the default.
set -uo pipefail
D=bench/results/h100_2026-12-07_run24
tar -xJf .devslim/devrun.tar.xz
source scripts/gpu/env.sh
T=.devrun/bin/tile-run-gpu
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
bash $D/probe.sh > "$OUT/probe.log" 2>&1
grep -E "^== |SUMMARY|values wrong|^exit" "$OUT/probe.log"
PP="cuda:sm_90a{pingpong=on}"
{
  for op in flash_attn_d128_b128 flash_attn_d128_b128_causal; do
    for shapes in BATCH=1,HEADS=3,SEQ=1000 BATCH=1,HEADS=2,SEQ=333 BATCH=1,HEADS=1,SEQ=64 \
                  BATCH=1,HEADS=2,SEQ=4097; do
      echo "== check $op $shapes $PP"
      timeout 90 $T .devrun/ops/$op.tile "--target=$PP" --check --seed=7 --shapes=$shapes 2>&1 | tail -2
    done
    for tool in racecheck synccheck memcheck; do
      echo "== $tool $op $PP"
      timeout 120 compute-sanitizer --tool $tool --print-limit 10 $T .devrun/ops/$op.tile \
        "--target=$PP" --check --shapes=BATCH=1,HEADS=2,SEQ=300 2>&1 | grep -v "^  check" | tail -14
      echo "$tool exit ${PIPESTATUS[0]}"
    done
  done
} > "$OUT/checks.log" 2>&1
grep -E "^== |PASS|FAIL|SUMMARY|exit|rror" "$OUT/checks.log"
{
  for op in flash_attn_d128_b128 flash_attn_d128_b128_causal; do
    for target in cuda "$PP" cuda; do
      echo "== $op BATCH=4,HEADS=32,SEQ=4096 $target"
      timeout 90 $T .devrun/ops/$op.tile "--target=$target" --static-shapes --bench --iters=30 \
        --warmup=5 --seed=4 --shapes=BATCH=4,HEADS=32,SEQ=4096 2>&1 | grep -E "^  bench|rror"
    done
  done
} 2>&1 | tee "$OUT/bench.log"
