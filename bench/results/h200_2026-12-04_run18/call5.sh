#!/usr/bin/env bash
# Run 18, call 5, on call 4's machine still warm: the autotuner over the gemm's config space at
# 4096^3 (call 4's own attempt lacked the bundle's library path: call4/autotune.log).
export LD_LIBRARY_PATH=$PWD/.devrun/lib:${LD_LIBRARY_PATH:-}
for op in gemm_bf16_to_bf16 gemm_f16_to_f16; do
  timeout 150 .devrun/bin/tile-run-gpu .devrun/ops/$op.tile --target=cuda --autotune --static-shapes \
    --shapes=M=4096,N=4096,K=4096 --iters=20 --warmup=3 --cache-dir=/tmp/tile-tune 2>&1 | tail -18
done | tee "$OUT/autotune.log"
