#!/usr/bin/env bash
# Run 18, call 1: after the cross-warp reduction scratch shrank (one partial per warp and row)
# and plan-shared-memory let buffers of one role's arm share bytes (the split attention's O_s
# now takes Q_s's bytes). The suite at default and ragged shapes, every CUDA support-matrix
# record, the Python package with TileLang's MLA decode at its own config (split and unsplit),
# the changed attention kernels benchmarked beside cuDNN and raced, the 4096^3 gemm again.
export BENCH_CASES="flash_attn_d128_b128:BATCH=4,HEADS=32,SEQ=4096 flash_attn_d128_b128_causal:BATCH=4,HEADS=32,SEQ=4096 \
gemm_bf16_to_bf16@128x256x64_s4:M=4096,N=4096,K=4096 gemm_f16_to_f16@128x256x64_s4:M=4096,N=4096,K=4096"
export STATIC_CHECK_CASES="flash_attn_d128_b128:BATCH=2,HEADS=3,SEQ=1000 flash_attn_d128_b128_causal:BATCH=2,HEADS=3,SEQ=1000"
export SEED_CASES=""
export SANITIZE_OPS="flash_attn_d128_b128 flash_attn_d128_b128_causal"
export RACECHECK_OPS="flash_attn_d128_b128 flash_attn_d128_b128_causal"
RUN_BUDGET_S=${RUN_BUDGET_S:-560} bash scripts/gpu/run_on_device.sh
