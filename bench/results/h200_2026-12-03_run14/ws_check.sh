#!/usr/bin/env bash
# Run 14, call 2, ON the GPU machine with the bundle in .devrun: the sm_90a gemms that
# warp-specialize now splits by default (TMA producer, one wgmma group in flight) checked
# against the float64 reference at static default and ragged shapes, under racecheck,
# synccheck and memcheck, their SASS, and timed beside {warp_specialize=off}.
# Output: $OUT/ws_run.txt, $OUT/ws_sass.txt.
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
{
for c in "gemm_f16 M=1024,N=1024,K=1024" "gemm_bf16 M=512,N=768,K=1024" "gemm_bf16 M=1000,N=776,K=336" \
         "gemm_f16 M=1000,N=777,K=333" "gemm_f16 M=4097,N=129,K=65" \
         "gemm_f16_tn M=512,N=512,K=512" "gemm_f16_nt M=512,N=512,K=512"; do
  set -- $c; echo "== check $1 $2"
  timeout 60 $B $O/$1.tile "$T" --check --static-shapes --seed=6 --shapes=$2 2>&1 | grep -E "check|rror"
done
for cfg in 128x256x64_s4 128x128x64_s3; do
  for op in gemm_bf16 gemm_f16; do
    echo "== check $op@$cfg M=1000,N=1024,K=1024"
    timeout 60 $B $O/$op.tile "$T" --check --static-shapes --seed=7 --config=$cfg --shapes=M=1000,N=1024,K=1024 2>&1 | grep -E "check|rror"
  done
done
for tool in racecheck synccheck memcheck; do
  for c in "gemm_bf16 128x256x64_s4" "gemm_f16 128x128x64_s3"; do
    set -- $c; echo "== $tool $1@$2 M=N=K=512"
    timeout 120 compute-sanitizer --tool $tool --print-limit 3 --error-exitcode 99 $B $O/$1.tile "$T" --check --static-shapes \
      --seed=3 --config=$2 --shapes=M=512,N=512,K=512 2>&1 | grep -E "SUMMARY|PASS|FAIL|rror" | tail -6
  done
done
for op in gemm_f16 gemm_bf16; do
  for n in 4096 8192; do
    for cfg in 128x256x64_s4 128x128x64_s3; do
      echo "== bench $op@$cfg $n^3"
      timeout 60 $B $O/$op.tile "$T" --bench --iters=30 --warmup=5 --seed=4 --static-shapes \
        --shapes=M=$n,N=$n,K=$n --config=$cfg --dump-cubin=/tmp/ws-cubin-$op-$cfg 2>&1 | grep -E "bench|rror"
    done
  done
done
for cfg in 128x256x64_s4 128x128x64_s3; do
  echo "== bench OFF gemm_bf16@$cfg 4096^3"
  timeout 60 $B $O/gemm_bf16.tile "$OFF" --bench --iters=30 --warmup=5 --seed=4 --static-shapes \
    --shapes=M=4096,N=4096,K=4096 --config=$cfg 2>&1 | grep -E "bench|rror"
done
} > "$OUT/ws_run.txt" 2>&1
{
  f=$(ls /tmp/ws-cubin-gemm_bf16-128x256x64_s4/*.cubin | head -1); echo "$f"
  cuobjdump --dump-resource-usage "$f"
  cuobjdump --dump-sass "$f" | grep -oE "UTMALDG[.A-Z0-9]*|SYNCS[.A-Z0-9]*|USETMAXREG[.A-Z0-9]*|HGMMA[.A-Z0-9x]*|WARPGROUP[.A-Z]*" | sort | uniq -c
} > "$OUT/ws_sass.txt" 2>&1
cat "$OUT/ws_run.txt" "$OUT/ws_sass.txt"
