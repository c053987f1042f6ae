#!/usr/bin/env bash
# Run 16, call 2: the whole device run (suite at default and ragged shapes, the support-matrix
# probe of every CUDA record, the peers) on the working tree after f13d42a, with the warp-specialized 128 x 256
# gemms and the attention kernels, now split (exp2_ftz in their softmax; the register rule counts setmaxnreg).
G="gemm_f16@128x256x64_s4 gemm_bf16@128x256x64_s4"
EXTRA=""
for g in $G; do for n in 4096 8192; do EXTRA+=" $g:M=$n,N=$n,K=$n"; done; done
export BENCH_CASES="gemm_f16:M=4096,N=4096,K=4096 gemm_bf16:M=4096,N=4096,K=4096 gemm_bf16:M=8192,N=8192,K=8192$EXTRA \
rmsnorm_row_f16:M=16384,N=8192 softmax_row_f16:M=16384,N=8192 layernorm_row_bf16:M=16384,N=8192 \
flash_attn_d128_b128:BATCH=4,HEADS=32,SEQ=4096 flash_attn_d128_b128_causal:BATCH=4,HEADS=32,SEQ=4096"
export STATIC_CHECK_CASES="gemm_f16:M=1024,N=1024,K=1024 gemm_bf16:M=512,N=768,K=1024 \
gemm_f16_tn:M=512,N=512,K=512 gemm_f16_nt:M=512,N=512,K=512 gemm_bf16@128x256x64_s4:M=1000,N=1024,K=1024 \
gemm_f16@128x256x64_s4:M=4097,N=256,K=512 gemm_f16@128x256x64_s4:M=1000,N=777,K=333"
RUN_BUDGET_S=${RUN_BUDGET_S:-540} bash scripts/gpu/run_on_device.sh
