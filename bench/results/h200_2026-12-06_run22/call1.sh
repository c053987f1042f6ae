# Run 22 call 1 (carry .devrun): overlap-gemm-chains on the H200 before it becomes the default's
# figures: correctness at ragged and one-block shapes with and without it (and with ping-pong),
# the sanitizers on the rotated attention, ping-pong's racecheck with constant barrier ids, the
# attention timed with {overlap=on} (the default) beside {overlap=off} and {pingpong=on}, and the
# rotated attention's SASS.
set -uo pipefail
source scripts/gpu/env.sh
T=.devrun/bin/tile-run-gpu
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/gpu.txt
{
for op in flash_attn_d128_b128 flash_attn_d128_b128_causal; do
  for s in BATCH=1,HEADS=1,SEQ=64 BATCH=1,HEADS=2,SEQ=128 BATCH=1,HEADS=2,SEQ=333 BATCH=1,HEADS=3,SEQ=1000 BATCH=1,HEADS=1,SEQ=4097; do
    echo "== $op cuda $s"; timeout 40 $T .devrun/ops/$op.tile --target=cuda --check --seed=7 --shapes=$s 2>&1 | grep -E "check|rror" | head -3; echo "   exit ${PIPESTATUS[0]}"
  done
  for s in BATCH=1,HEADS=2,SEQ=333 BATCH=1,HEADS=3,SEQ=1000; do
    echo "== $op cuda:sm_90a{pingpong=on} $s"; timeout 40 $T .devrun/ops/$op.tile "--target=cuda:sm_90a{pingpong=on}" --check --seed=7 --shapes=$s 2>&1 | grep -E "check|rror" | head -3; echo "   exit ${PIPESTATUS[0]}"
  done
done
for s in BATCH=1,HEADS=2,SEQ=333 BATCH=1,HEADS=3,SEQ=1000; do
  echo "== flash_attn_d128_b128 cuda:sm_90a{persistent=on} $s"; timeout 40 $T .devrun/ops/flash_attn_d128_b128.tile "--target=cuda:sm_90a{persistent=on}" --check --seed=7 --shapes=$s 2>&1 | grep -E "check|rror" | head -3; echo "   exit ${PIPESTATUS[0]}"
done
} 2>&1 | tee $OUT/checks.log | grep -E "^==|exit|FAIL|rror" | paste - - | grep -v "exit 0" ; echo "checks: $(grep -c 'exit 0' $OUT/checks.log) exit 0 of $(grep -c '^==' $OUT/checks.log)"
{
for op in flash_attn_d128_b128 flash_attn_d128_b128_causal; do
  for tool in racecheck synccheck memcheck; do
    timeout 60 compute-sanitizer --tool $tool --error-exitcode=9 $T .devrun/ops/$op.tile --target=cuda --check --shapes=BATCH=1,HEADS=2,SEQ=300 2>&1 | tail -1
    echo "$op $tool exit ${PIPESTATUS[0]}"
  done
done
echo "== racecheck flash_attn_d128_b128 {pingpong=on}, constant barrier ids"
timeout 60 compute-sanitizer --tool racecheck --racecheck-report all --print-limit 10 --error-exitcode=9 $T .devrun/ops/flash_attn_d128_b128.tile "--target=cuda:sm_90a{pingpong=on}" --check --shapes=BATCH=1,HEADS=2,SEQ=300 2>&1 | tail -40
echo "pingpong racecheck exit ${PIPESTATUS[0]}"
} > $OUT/sanitizers.log 2>&1
grep -E "exit|SUMMARY" $OUT/sanitizers.log
{
for op in flash_attn_d128_b128 flash_attn_d128_b128_causal; do
  for t in cuda "cuda:sm_90a{overlap=off}" "cuda:sm_90a{pingpong=on}" cuda; do
    echo "== $op $t"
    timeout 60 $T .devrun/ops/$op.tile "--target=$t" --static-shapes --bench --iters=30 --warmup=5 --seed=4 --shapes=BATCH=4,HEADS=32,SEQ=4096 2>&1 | grep -E "^  bench|rror"
  done
done
} 2>&1 | tee $OUT/bench.log
mkdir -p /tmp/cubin
timeout 60 $T .devrun/ops/flash_attn_d128_b128.tile --target=cuda --static-shapes --shapes=BATCH=4,HEADS=32,SEQ=4096 --dump-cubin=/tmp/cubin > /dev/null 2>&1
for c in /tmp/cubin/*.cubin; do cuobjdump --dump-sass "$c" > $OUT/attn_overlap.sass 2>&1; cuobjdump --dump-resource-usage "$c" >> $OUT/attn_overlap.sass 2>&1; done
grep -cE "HGMMA" $OUT/attn_overlap.sass; grep -E "REG:|STACK" $OUT/attn_overlap.sass | head -3
timeout 170 .devrun/bin/tile-matrix-gpu run --backends=cuda --commit=${COMMIT:?} --out=$OUT/matrix_records.json 2>&1 | tail -3
