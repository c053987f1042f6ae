set -uo pipefail
source scripts/gpu/env.sh
T=.devrun/bin/tile-run-gpu
nvidia-smi --query-gpu=name --format=csv,noheader
{
for op in flash_attn_d128_b128 flash_attn_d128_b128_causal; do
  for s in BATCH=1,HEADS=3,SEQ=1000 BATCH=2,HEADS=2,SEQ=4097; do
    echo "== $op $s"; timeout 60 $T .devrun/ops/$op.tile --target=cuda --check --seed=7 --shapes=$s 2>&1 | grep -E "check|rror" | head -3; echo "   exit ${PIPESTATUS[0]}"
  done
done
for op in gemm_bf16_to_bf16 gemm_f16_to_f16; do
  for s in M=1000,N=777,K=333 M=4097,N=129,K=65; do
    echo "== $op $s"; timeout 60 $T .devrun/ops/$op.tile --target=cuda --check --seed=7 --shapes=$s 2>&1 | grep -E "check|rror" | head -3; echo "   exit ${PIPESTATUS[0]}"
  done
done
for tool in racecheck synccheck memcheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode=9 $T .devrun/ops/flash_attn_d128_b128_causal.tile --target=cuda --check --shapes=BATCH=1,HEADS=2,SEQ=300 2>&1 | tail -1
  echo "causal attention $tool exit ${PIPESTATUS[0]}"
done
} 2>&1 | tee $OUT/final_checks.log
timeout 170 .devrun/bin/tile-matrix-gpu run --backends=cuda --commit=1462355 --out=$OUT/matrix_records.json 2>&1 | tail -3
