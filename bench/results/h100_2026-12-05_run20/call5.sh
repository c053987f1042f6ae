# Run 20 call 5 (a third machine; carry .devslim): gemm_f16 (f32 output) at s4/s3 with and
# without TMA stores, and the two TMA-store kernels' resource usage.
tar -xJf .devslim/devrun.tar.xz; source scripts/gpu/env.sh; T=.devrun/bin/tile-run-gpu
for t in "cuda:sm_90a{tma_store=off}" cuda; do for c in 128x256x64_s4 128x256x64_s3; do
  echo "== gemm_f16 M=4096,N=4096,K=4096 $t $c static"
  timeout 60 $T .devrun/ops/gemm_f16.tile --target=$t --config=$c --static-shapes --bench --iters=30 --warmup=5 \
    --seed=4 --shapes=M=4096,N=4096,K=4096 2>&1 | grep -E "^  bench|rror"
done; done 2>&1 | tee $OUT/gemm_f16_store.log
mkdir -p $OUT/cubin_s4 $OUT/cubin_s3
for d in s4 s3; do
  timeout 60 $T .devrun/ops/gemm_f16.tile --target=cuda --config=128x256x64_$d --static-shapes \
    --shapes=M=4096,N=4096,K=4096 --dump-cubin=$OUT/cubin_$d > /dev/null 2>&1
  cuobjdump --dump-resource-usage $OUT/cubin_$d/*.cubin | tail -3   # s4: STACK:512, s3: STACK:0
done
rm -f $OUT/cubin_*/*.cubin
