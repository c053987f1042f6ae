#!/usr/bin/env bash
# Run 16, call 1 (the script of run 15, call 1), ON the GPU machine with the bundle in .devrun: the flash-attention kernels
# that warp-specialize now splits on sm_90a (rank-4 TMA loads of K and V in two barrier
# groups, the consumers' shared epilogue ordered by named barriers), checked against the
# float64 reference at default, ragged and dynamic shapes, under racecheck, synccheck and
# memcheck, with their register use and SASS, and timed beside {warp_specialize=off}; the
# 128 x 256 gemm timed again to see that it did not move.
# Output: $OUT/attn_run.txt, $OUT/attn_sass.txt. QUICK=1: two check shapes, no sanitizers.
set -uo pipefail
B=.devrun/bin/tile-run-gpu
O=.devrun/ops
export PATH=$PATH:/usr/local/cuda/bin:/usr/local/cuda/compute-sanitizer
NV=""
for d in /usr/local/cuda/lib64 $(python3 -c 'import glob,sys;print(" ".join(p.rsplit("/",1)[0] for d in sys.path for p in glob.glob(d+"/nvidia/*/lib/libnvrtc.so.13")))'); do
  [[ -e $d/libnvrtc.so.13 ]] && { NV=$d; break; }
done
export LD_LIBRARY_PATH=.devrun/lib:$NV:${LD_LIBRARY_PATH:-}
T='--target=cuda:sm_90a'
OFF='--target=cuda:sm_90a{warp_specialize=off}'
A="flash_attn_d128_b128 flash_attn_d128_b128_causal"
{
for op in $A; do
  SHAPES="BATCH=2,HEADS=4,SEQ=1024 BATCH=1,HEADS=3,SEQ=1000 BATCH=2,HEADS=2,SEQ=333 BATCH=1,HEADS=2,SEQ=4097"
  [[ -n "${QUICK:-}" ]] && SHAPES="BATCH=2,HEADS=4,SEQ=1024 BATCH=2,HEADS=2,SEQ=333"
  for s in $SHAPES; do
    echo "== check static $op $s"
    timeout 90 $B $O/$op.tile "$T" --check --static-shapes --seed=8 --shapes=$s 2>&1 | grep -E "check|rror|remark"
    echo "== check dynamic $op $s"
    timeout 90 $B $O/$op.tile "$T" --check --seed=9 --shapes=$s 2>&1 | grep -E "check|rror|remark"
  done
done
TOOLS="racecheck synccheck memcheck"; [[ -n "${QUICK:-}" ]] && TOOLS=""
for tool in $TOOLS; do
  for op in $A; do
    echo "== $tool $op BATCH=1,HEADS=2,SEQ=333"
    timeout 150 compute-sanitizer --tool $tool --print-limit 3 --error-exitcode 99 $B $O/$op.tile "$T" --check \
      --static-shapes --seed=3 --shapes=BATCH=1,HEADS=2,SEQ=333 2>&1 | grep -E "SUMMARY|PASS|FAIL|rror" | tail -6
  done
done
for op in $A; do
  for t in "$T" "$OFF"; do
    echo "== bench $op $t BATCH=4,HEADS=32,SEQ=4096"
    D=(); [[ "$t" == "$T" ]] && D=(--dump-cubin=/tmp/attn-cubin-$op)
    timeout 90 $B $O/$op.tile "$t" --bench --iters=30 --warmup=5 --seed=4 --static-shapes \
      --shapes=BATCH=4,HEADS=32,SEQ=4096 "${D[@]}" 2>&1 | grep -E "bench|rror"
  done
done
echo "== bench gemm_bf16@128x256x64_s4 4096^3"
timeout 60 $B $O/gemm_bf16.tile "$T" --bench --iters=30 --warmup=5 --seed=4 --static-shapes \
  --shapes=M=4096,N=4096,K=4096 --config=128x256x64_s4 2>&1 | grep -E "bench|rror"
} > "$OUT/attn_run.txt" 2>&1
{
  for f in $(ls /tmp/attn-cubin-*/*.cubin 2>/dev/null); do
    echo "== $f"
    cuobjdump --dump-resource-usage "$f" | grep -E "REG|STACK|SHARED"
    echo "highest register named in the SASS: $(cuobjdump --dump-sass "$f" | grep -oE '\bR[0-9]+\b' | tr -d R | sort -n | tail -1)"
    cuobjdump --dump-sass "$f" | grep -oE "UTMALDG[.A-Z0-9]*|SYNCS[.A-Z0-9]*|USETMAXREG[.A-Z0-9]*|HGMMA[.A-Z0-9x]*|BAR[.A-Z0-9]*" | sort | uniq -c
  done
} > "$OUT/attn_sass.txt" 2>&1
cat "$OUT/attn_run.txt" "$OUT/attn_sass.txt"
