# Run 22 call 2 (carry .devslim and .tlw, as one_call.sh packs them): the session's last ~400
# device seconds, so the attention alone beside its peers in one call: ours (a warm-up launch
# set, then the default and {overlap=off}), peer_baselines.py (cuDNN and the rest), then
# TileLang 0.1.15 compiling the same programs. The gemms are not timed: this session's change
# does not touch their code (one group of copies: the same kernels as run 21).
set -uo pipefail
: "${OUT:?OUT is set by the device tool}"
tar -xJf .devslim/devrun.tar.xz
source scripts/gpu/env.sh
T=.devrun/bin/tile-run-gpu
S=BATCH=4,HEADS=32,SEQ=4096
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader > "$OUT/gpu.txt"
{
for op in flash_attn_d128_b128 flash_attn_d128_b128_causal; do
  echo "== warmup $op"
  timeout 60 $T .devrun/ops/$op.tile --target=cuda --static-shapes --bench --iters=30 --warmup=5 --seed=4 --shapes=$S 2>&1 | grep -E "^  bench|rror"
  for t in cuda "cuda:sm_90a{overlap=off}"; do
    echo "== $op $S $t default"
    timeout 60 $T .devrun/ops/$op.tile "--target=$t" --static-shapes --bench --iters=30 --warmup=5 --seed=4 --shapes=$S 2>&1 | grep -E "^  bench|rror"
  done
done
} 2>&1 | tee "$OUT/bench.log"
env LD_LIBRARY_PATH="$SYSTEM_LD_LIBRARY_PATH" timeout 170 python3 .devrun/peer_baselines.py > "$OUT/peers.log" 2>&1
grep -iE "cudnn|flash" "$OUT/peers.log" | head -6
mkdir -p /tmp/tl && tar -xJf .tlw/tl_site.tar.xz -C /tmp/tl
env PYTHONPATH=/tmp/tl CUDA_HOME=/usr/local/cuda PATH="$PATH:/usr/local/cuda/bin" \
  LD_LIBRARY_PATH="$SYSTEM_LD_LIBRARY_PATH" PYTHONUNBUFFERED=1 \
  timeout 200 python3 .tlw/tilelang_peer.py > "$OUT/tilelang_peer.log" 2>&1
grep -E "TFLOP|GB/s" "$OUT/tilelang_peer.log" | grep -v "^ " | tail -8
