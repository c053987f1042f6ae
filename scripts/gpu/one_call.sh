#!/usr/bin/env bash
# Ours, the peers and TileLang timed in ONE device call, so that every ratio compares one
# machine even when it is handed back between calls (it waits about 30 s idle; run 20's
# TileLang call missed it). The bundle travels xz-packed so that it fits one call beside
# TileLang's 45 MB (a call carries at most 64 MiB):
#   here:   bash scripts/gpu/build_bundle.sh && bash scripts/gpu/one_call.sh pack
#           (and once: bash ../shared/tools/tilelang_peer/pack.sh .tlw; cp its tilelang_peer.py .tlw/)
#   device: bash scripts/gpu/one_call.sh run      (carry [".devslim", ".tlw"]; OUT is set there)
# `run` writes to OUT: baselines.json and peers.log (peer_baselines.py), bench.log (tile-run
# --bench lines under '== op shapes target config' headers, as figures_json.py reads them),
# racecheck.log (the full report of the {pingpong=on} attention), sass.log (which Hopper
# instructions the benchmarked gemm and attention contain), tilelang_peer.json and .log.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
LIMIT=$((64 * 1024 * 1024))
case ${1:-} in
  pack)
    [[ -x .devrun/bin/tile-run-gpu ]] || { echo "one_call: no .devrun; run build_bundle.sh" >&2; exit 1; }
    [[ -f .tlw/tl_site.tar.xz && -f .tlw/tilelang_peer.py ]] ||
      { echo "one_call: no .tlw; see this script's header" >&2; exit 1; }
    rm -rf .devslim && mkdir -p .devslim
    tar -cJf .devslim/devrun.tar.xz .devrun/bin/tile-run-gpu .devrun/lib .devrun/ops \
      .devrun/peer_baselines.py
    bytes=$(du -cb .devslim .tlw | tail -1 | cut -f1)
    echo "one_call: .devslim + .tlw = $((bytes / 1000000)) MB (limit $((LIMIT / 1000000)) MB)"
    ((bytes < LIMIT)) || { echo "one_call: too big for one call" >&2; exit 1; }
    ;;
  run)
    : "${OUT:?one_call run: OUT is set by the device tool}"
    tar -xJf .devslim/devrun.tar.xz
    source scripts/gpu/env.sh
    T=.devrun/bin/tile-run-gpu
    nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader > "$OUT/gpu.txt"
    env LD_LIBRARY_PATH="$SYSTEM_LD_LIBRARY_PATH" timeout 200 python3 .devrun/peer_baselines.py \
      > "$OUT/peers.log" 2>&1
    bench() {  # op shapes target [config] [static: empty, or anything for --static-shapes]
      local op=$1 shapes=$2 target=$3 cfg=${4:-} static=${5:-}
      # Dynamic-shape runs are headed "== dynamic ...", which figures_json.py leaves out.
      local prefix="dynamic "
      [[ -n $static ]] && prefix=""
      echo "== $prefix$op $shapes $target ${cfg:-default}"
      timeout 90 $T .devrun/ops/$op.tile "--target=$target" ${cfg:+--config=$cfg} \
        ${static:+--static-shapes} --bench --iters=30 --warmup=5 --seed=4 --shapes=$shapes \
        --explain 2>&1 | grep -E "^  bench|rror|^default config|warp-specialize: kernel .* (stores|keeps|gives)"
    }
    {
      for shapes in M=4096,N=4096,K=4096 M=8192,N=8192,K=8192; do
        for op in gemm_bf16_to_bf16 gemm_f16_to_f16; do
          bench $op $shapes cuda "" static
          bench $op $shapes "cuda:sm_90a{persistent=on}" "" static
          bench $op $shapes cuda
        done
      done
      # The f32-output gemm, whose 4-stage TMA store takes 4 chunks of 32 rows.
      for cfg in 128x256x64_s3 128x256x64_s4; do
        bench gemm_f16 M=4096,N=4096,K=4096 cuda $cfg static
      done
      for op in flash_attn_d128_b128 flash_attn_d128_b128_causal; do
        bench $op BATCH=4,HEADS=32,SEQ=4096 cuda "" static
        bench $op BATCH=4,HEADS=32,SEQ=4096 "cuda:sm_90a{overlap=off}" "" static
        bench $op BATCH=4,HEADS=32,SEQ=4096 "cuda:sm_90a{pingpong=on}" "" static
      done
    } 2>&1 | tee "$OUT/bench.log"
    # Run 20 call 1 found 4 racecheck hazards in the {pingpong=on} attention (its summary only):
    # the full report, and the attention without ping-pong beside it.
    for target in "cuda:sm_90a{pingpong=on}" cuda; do
      echo "== racecheck flash_attn_d128_b128 $target"
      timeout 120 compute-sanitizer --tool racecheck --racecheck-report all --print-limit 40 \
        $T .devrun/ops/flash_attn_d128_b128.tile "--target=$target" --check \
        --shapes=BATCH=1,HEADS=2,SEQ=300 2>&1 | grep -v "^  check"
      echo "racecheck $target exit ${PIPESTATUS[0]}"
    done > "$OUT/racecheck.log" 2>&1
    grep -E "SUMMARY|exit" "$OUT/racecheck.log"
    mkdir -p /tmp/cubin
    timeout 90 $T .devrun/ops/gemm_bf16_to_bf16.tile --target=cuda --static-shapes \
      --shapes=M=4096,N=4096,K=4096 --dump-cubin=/tmp/cubin > /dev/null 2>&1
    timeout 90 $T .devrun/ops/flash_attn_d128_b128.tile --target=cuda --static-shapes \
      --shapes=BATCH=4,HEADS=32,SEQ=4096 --dump-cubin=/tmp/cubin > /dev/null 2>&1
    for cubin in /tmp/cubin/*.cubin; do
      echo "== $(basename "$cubin")"
      cuobjdump --dump-sass "$cubin" > /tmp/sass.txt 2>&1
      for insn in UTMALDG UTMASTG SYNCS USETMAXREG HGMMA WARPGROUP BAR; do
        printf '  %-10s %s\n' "$insn" "$(grep -c "$insn" /tmp/sass.txt)"
      done
    done 2>&1 | tee "$OUT/sass.log"
    mkdir -p /tmp/tl && tar -xJf .tlw/tl_site.tar.xz -C /tmp/tl
    env PYTHONPATH=/tmp/tl CUDA_HOME=/usr/local/cuda PATH="$PATH:/usr/local/cuda/bin" \
      LD_LIBRARY_PATH="$SYSTEM_LD_LIBRARY_PATH" PYTHONUNBUFFERED=1 \
      timeout 240 python3 .tlw/tilelang_peer.py > "$OUT/tilelang_peer.log" 2>&1
    grep -E "TFLOP|GB/s" "$OUT/tilelang_peer.log" | grep -v "^ " | tail -8
    ;;
  *)
    echo "usage: bash scripts/gpu/one_call.sh pack   (here, after build_bundle.sh)" >&2
    echo "       bash scripts/gpu/one_call.sh run    (on the GPU machine; carry .devslim and .tlw)" >&2
    exit 2
    ;;
esac
