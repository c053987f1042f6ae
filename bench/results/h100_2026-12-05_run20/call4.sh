# Run 20 call 4 (machine of call 3, warm; carry .devslim): the attention timings and the
# f32-output gemm at 128x256x64_s3/_s4 with a check at ragged shapes.
tar -xJf .devslim/devrun.tar.xz; source scripts/gpu/env.sh; T=.devrun/bin/tile-run-gpu
for op in flash_attn_d128_b128 flash_attn_d128_b128_causal; do for t in cuda "cuda:sm_90a{pingpong=on}"; do
  echo "== $op BATCH=4,HEADS=32,SEQ=4096 $t default static"
  timeout 60 $T .devrun/ops/$op.tile --target=$t --static-shapes --bench --iters=30 --warmup=5 --seed=4 \
    --shapes=BATCH=4,HEADS=32,SEQ=4096 2>&1 | grep -E "^  bench|rror"
done; done 2>&1 | tee $OUT/attn_bench.log
for c in 128x256x64_s3 128x256x64_s4; do
  for op in gemm_f16 gemm_bf16; do
    echo "== $op M=4096,N=4096,K=4096 cuda $c static"
    timeout 60 $T .devrun/ops/$op.tile --target=cuda --config=$c --static-shapes --bench --iters=30 --warmup=5 \
      --seed=4 --shapes=M=4096,N=4096,K=4096 2>&1 | grep -E "^  bench|rror"
  done
  echo "== check gemm_f16 $c ragged"
  timeout 60 $T .devrun/ops/gemm_f16.tile --target=cuda --config=$c --static-shapes --check --seed=5 \
    --shapes=M=1000,N=1024,K=520 2>&1 | grep -E "check |rror"
done 2>&1 | tee $OUT/gemm_f32out.log
