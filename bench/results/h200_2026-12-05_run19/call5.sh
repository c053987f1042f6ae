#!/usr/bin/env bash
# Run 19, call 5 (same machine as call 4, warm; carry .devrun): every CUDA support-matrix record
# re-probed at 40735e5, and tile-run OP without --config at 4096^3 (the default config).
source scripts/gpu/env.sh
.devrun/bin/tile-matrix-gpu run --backends=cuda --commit="$(sed -n "s/^commit //p" .devrun/MANIFEST)" --out=$OUT/matrix_records.json
for op in gemm_bf16_to_bf16 gemm_f16_to_f16; do for st in "" --static-shapes; do
  .devrun/bin/tile-run-gpu .devrun/ops/$op.tile --target=cuda --bench $st --iters=20 --warmup=3 --seed=4 --shapes=M=4096,N=4096,K=4096
done; done
