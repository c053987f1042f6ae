#!/usr/bin/env bash
# Run 13's second half, ON the GPU machine after scripts/gpu/run_on_device.sh (which leaves
# the environment: PATH with compute-sanitizer, NVRTC found below): the sm_90a kernels with
# {warp_specialize=on} checked against the float64 reference, under racecheck, synccheck and
# memcheck, and timed. Output: $OUT/ws_run.txt.
set -uo pipefail
B=.devrun/bin/tile-run-gpu
O=.devrun/ops
export PATH=$PATH:/usr/local/cuda/bin:/usr/local/cuda/compute-sanitizer
NV=""
for d in /usr/local/cuda/lib64 $(python3 -c 'import glob,sys;print(" ".join(p.rsplit("/",1)[0] for d in sys.path for p in glob.glob(d+"/nvidia/*/lib/libnvrtc.so.13")))'); do
  [[ -e $d/libnvrtc.so.13 ]] && { NV=$d; break; }
done
export LD_LIBRARY_PATH=.devrun/lib:$NV:${LD_LIBRARY_PATH:-}
T='--target=cuda:sm_90a{warp_specialize=on}'
{
for c in "gemm_f16 M=1024,N=1024,K=1024" "gemm_bf16 M=512,N=768,K=1024" "gemm_bf16 M=1000,N=776,K=336" \
         "gemm_f16_tn M=512,N=512,K=512" "gemm_f16_nt M=512,N=512,K=512"; do
  set -- $c; echo "== ws check $1 $2"
  timeout 60 $B $O/$1.tile "$T" --check --static-shapes --seed=6 --shapes=$2 2>&1 | grep -E "check|error"
done
for cfg in 128x256x64_s4 128x128x64_s3; do
  echo "== ws check gemm_bf16@$cfg M=1000,N=1024,K=1024"
  timeout 60 $B $O/gemm_bf16.tile "$T" --check --static-shapes --seed=7 --config=$cfg --shapes=M=1000,N=1024,K=1024 2>&1 | grep -E "check|error"
done
for tool in racecheck synccheck memcheck; do
  for c in "gemm_bf16 128x256x64_s4" "gemm_f16 128x128x64_s3"; do
    set -- $c; echo "== $tool ws $1@$2 M=N=K=512"
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 99 $B $O/$1.tile "$T" --check --static-shapes \
      --seed=3 --config=$2 --shapes=M=512,N=512,K=512 2>&1 | tail -2
  done
done
for s in "gemm_f16 4096 128x128x64_s3" "gemm_bf16 4096 128x128x64_s3" "gemm_bf16 4096 128x256x64_s4" \
         "gemm_bf16 8192 128x128x64_s3" "gemm_bf16 8192 128x256x64_s4"; do
  set -- $s; echo "== ws bench $1@$3 $2^3"
  timeout 60 $B $O/$1.tile "$T" --bench --iters=20 --warmup=3 --seed=4 --static-shapes \
    --shapes=M=$2,N=$2,K=$2 --config=$3 2>&1 | grep -E "bench|error"
done
} > "$OUT/ws_run.txt" 2>&1
cat "$OUT/ws_run.txt"
