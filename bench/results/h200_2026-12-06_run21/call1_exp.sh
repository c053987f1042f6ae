set -uo pipefail
source scripts/gpu/env.sh
T=.devrun/bin/tile-run-gpu
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
b() { echo "== $*"; timeout 90 $T $( [[ -f .devslim/ops/$1.tile ]] && echo .devslim/ops/$1.tile || echo .devrun/ops/$1.tile ) "--target=$2" --static-shapes --bench --iters=30 --warmup=5 --seed=4 --shapes=BATCH=4,HEADS=32,SEQ=4096 2>&1 | grep -E "^  bench|rror"; }
for op in flash_attn_d128_b128 flash_attn_d128_b128_causal flash_attn_d128_b128_causal_switch flash_attn_d128_b128_causal_fwd flash_attn_d128_b128_causal_nomask; do
  b $op cuda
done
for op in flash_attn_d128_b128 flash_attn_d128_b128_causal; do b $op "cuda:sm_90a{pingpong=on}"; done
for op in flash_attn_d128_b128 flash_attn_d128_b128_causal; do
  for s in BATCH=1,HEADS=3,SEQ=1000 BATCH=2,HEADS=2,SEQ=4097; do
  echo "== check $op $s"; timeout 60 $T .devrun/ops/$op.tile --target=cuda --check --seed=7 --shapes=$s 2>&1 | tail -2
  done
done
echo "== racecheck causal default"
timeout 120 compute-sanitizer --tool racecheck --error-exitcode=9 $T .devrun/ops/flash_attn_d128_b128_causal.tile --target=cuda --check --shapes=BATCH=1,HEADS=2,SEQ=300 2>&1 | tail -2
echo "racecheck exit ${PIPESTATUS[0]}"
