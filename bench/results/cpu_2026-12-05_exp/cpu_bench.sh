#!/usr/bin/env bash
# CPU timings of the suite's exp- and tanh-heavy operators and a control without either: one
# binary ($1).
TR=$1
for c in "softmax_f32 M=1024,N=4096" "softmax_f16 M=1024,N=4096" "layernorm_f32 M=1024,N=4096" \
         "flash_attn_d64 BATCH=1,HEADS=4,SEQ=1024" "flash_attn_d128 BATCH=1,HEADS=2,SEQ=1024" \
         "bias_gelu_f16 M=1024,N=4096" "row_max_f32 M=1024,N=4096"; do
  set -- $c
  printf '%-16s %-26s ' "$1" "$2"
  TILE_DISABLE_CACHE=1 $TR $1 --bench --iters=7 --warmup=2 --seed=1 --shapes=$2 2>&1 | grep -E "^  bench" | sed 's/^  bench   //'
done
