#!/usr/bin/env bash
# Run 18, call 4: the tree after issue 12's merges (one portable CUDA/HIP device-header set,
# registries in one explicit style) and ragged-row copies as zero-filling cp.async (every
# attention op's Q/K/V copies changed): the suite at default and ragged shapes and every CUDA
# support-matrix record (the device library changed), the Python package, memcheck/racecheck
# of the gemm and attention, the 4096^3 / 8192^3 gemms beside cuBLAS, and the autotuner over
# the gemm's config space at 4096^3 (which candidates are warp-specialized, and whether one
# passes cuBLAS).
export BENCH_CASES="gemm_bf16_to_bf16@128x256x64_s4:M=4096,N=4096,K=4096 gemm_f16_to_f16@128x256x64_s4:M=4096,N=4096,K=4096 \
gemm_bf16_to_bf16@128x256x64_s4:M=8192,N=8192,K=8192 gemm_f16_to_f16@128x256x64_s4:M=8192,N=8192,K=8192 \
flash_attn_d128_b128:BATCH=4,HEADS=32,SEQ=4096 flash_attn_d128_b128_causal:BATCH=4,HEADS=32,SEQ=4096"
export STATIC_CHECK_CASES="gemm_bf16_to_bf16@128x256x64_s4:M=1000,N=777,K=333 gemm_f16_to_f16@128x256x64_s4:M=4097,N=129,K=65"
export SEED_CASES=""
export SANITIZE_OPS="gemm_bf16_to_bf16 flash_attn_d128_b128 flash_attn_d64 flash_attn_d128_causal rmsnorm_row_f16"
export RACECHECK_OPS="gemm_f16 flash_attn_d128_b128 flash_attn_d64 flash_attn_d128_causal softmax_row_f16:default"
RUN_BUDGET_S=${RUN_BUDGET_S:-480} bash scripts/gpu/run_on_device.sh
export LD_LIBRARY_PATH=$PWD/.devrun/lib:${LD_LIBRARY_PATH:-}  # added after the run: call 4 lacked it
for op in gemm_bf16_to_bf16 gemm_f16_to_f16; do
  timeout 100 .devrun/bin/tile-run-gpu .devrun/ops/$op.tile --target=cuda --autotune --static-shapes \
    --shapes=M=4096,N=4096,K=4096 --iters=20 --warmup=3 --cache-dir=/tmp/tile-tune 2>&1 | tail -20
done | tee "$OUT/autotune.log"
