#!/usr/bin/env bash
# Run 17, call 1: the whole device run (scripts/gpu/run_on_device.sh) with the Python package
# on torch tensors (its new step), the 16-bit-output gemms beside the f32-output one at the
# warp-specialized 128x256 config, the row kernels and the attention, and the peers in the
# same call. TileLang follows in call 2 (call2.sh) on the machine still warm.
G="gemm_f16_to_f16@128x256x64_s4 gemm_bf16_to_bf16@128x256x64_s4"
EXTRA=""
for g in $G; do for n in 4096 8192; do EXTRA+=" $g:M=$n,N=$n,K=$n"; done; done
export BENCH_CASES="gemm_bf16:M=4096,N=4096,K=4096 gemm_bf16@128x256x64_s4:M=4096,N=4096,K=4096$EXTRA \
rmsnorm_row_f16:M=16384,N=8192 softmax_row_f16:M=16384,N=8192 layernorm_row_bf16:M=16384,N=8192 \
flash_attn_d128_b128:BATCH=4,HEADS=32,SEQ=4096 flash_attn_d128_b128_causal:BATCH=4,HEADS=32,SEQ=4096"
export STATIC_CHECK_CASES="gemm_f16:M=1024,N=1024,K=1024 gemm_bf16@128x256x64_s4:M=1000,N=1024,K=1024 \
gemm_bf16_to_bf16@128x256x64_s4:M=1000,N=1024,K=1024 gemm_f16_to_f16@128x256x64_s4:M=4097,N=256,K=512 \
gemm_bf16_to_bf16@128x256x64_s4:M=1000,N=777,K=333 gemm_f16_to_f16@128x256x64_s4:M=4097,N=129,K=65"
export SEED_CASES=""
export SANITIZE_OPS="flash_attn_d128_b128 gemm_bf16_to_bf16"
export RACECHECK_OPS="gemm_f16 gemm_bf16_to_bf16"
RUN_BUDGET_S=${RUN_BUDGET_S:-550} bash scripts/gpu/run_on_device.sh
