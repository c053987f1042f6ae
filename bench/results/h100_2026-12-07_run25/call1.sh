#!/bin/bash
# Run 25 call 1 (device machine; carry .devrun): issue 37's GPU items in one call.
#  tests.log   cuda_device_test (grid limits from the device), the suite at default and ragged
#              shapes (tile-run-gpu --all --check), gemm_f32 (now tl::gemm_fma) at ragged and
#              TileLang's shapes, and the support matrix's CUDA records re-probed
#  python.log  torch_on_gpu.py: the examples against torch, LayerNorm fwd/bwd at D = 1 included
#  issue37.log issue37_checks.py: TileLang's f32 gemm config from Python (compile time, error,
#              time beside torch f32 without TF32), i64 scalars exact on CUDA
#  bench.log   tile-run-gpu --bench of gemm_f32 (static shapes) at 512x1024x768 and 4096^3
#  sanitizer.log memcheck and racecheck of gemm_f32 at a ragged shape
set -uo pipefail
source scripts/gpu/env.sh
T=.devrun/bin/tile-run-gpu
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
{
  echo "== cuda_device_test"; timeout 120 .devrun/bin/cuda_device_test 2>&1 | tail -5
  echo "== suite default"; timeout 150 $T --all --target=cuda 2>&1 | tail -40
  echo "== suite ragged"; timeout 150 $T --all --target=cuda --ragged 2>&1 | tail -40
  for shapes in M=1000,N=777,K=333 M=4097,N=129,K=65 M=1,N=1,K=1 M=512,N=1024,K=768; do
    echo "== check gemm_f32 $shapes"
    timeout 60 $T .devrun/ops/gemm_f32.tile --target=cuda --check --seed=5 --shapes=$shapes 2>&1 | tail -2
  done
  echo "== matrix"
  timeout 200 .devrun/bin/tile-matrix-gpu run --backends=cuda --seed=1 \
    --commit="$(sed -n 's/^commit //p' .devrun/MANIFEST)" --out="$OUT/matrix_records.json" 2>&1 | tail -8
} > "$OUT/tests.log" 2>&1
grep -E "^== |PASS|FAIL|passed|failed|rror" "$OUT/tests.log" | head -80
PYTHON_SCRIPT=issue37_checks.py timeout 240 bash scripts/gpu/run_python_on_device.sh > "$OUT/issue37.log" 2>&1
grep -E "^check|issue37:" "$OUT/issue37.log"
timeout 200 bash scripts/gpu/run_python_on_device.sh > "$OUT/python.log" 2>&1
grep -E "^check .*(FAIL|layernorm)|checks passed" "$OUT/python.log"
{
  for shapes in M=512,N=1024,K=768 M=4096,N=4096,K=4096; do
    echo "== gemm_f32 $shapes cuda"
    timeout 90 $T .devrun/ops/gemm_f32.tile --target=cuda --static-shapes --bench --iters=30 \
      --warmup=5 --seed=4 --shapes=$shapes 2>&1 | grep -E "^  bench|rror"
  done
} 2>&1 | tee "$OUT/bench.log"
for tool in memcheck racecheck; do
  echo "== $tool gemm_f32 M=300,N=200,K=100"
  timeout 120 compute-sanitizer --tool $tool --print-limit 10 $T .devrun/ops/gemm_f32.tile \
    --target=cuda --check --shapes=M=300,N=200,K=100 2>&1 | tail -6
done > "$OUT/sanitizer.log" 2>&1
grep -E "^==|SUMMARY|ERROR SUMMARY|PASS|FAIL" "$OUT/sanitizer.log"
