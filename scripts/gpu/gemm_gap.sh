#!/usr/bin/env bash
# Issue 14's last GEMM bar (bf16 4096^3 >= 1.0x cuBLAS in the same run), in device calls of at
# most 10 minutes each (carry .devrun; OUT is set by the device tool):
#   bash scripts/gpu/gemm_gap.sh checks   # correctness of what the tenth session built
#   bash scripts/gpu/gemm_gap.sh bench    # speed, beside cuBLAS timed by the same method
# then, on the same warm machine, TileLang (carry .tlw): bash scripts/gpu/tilelang_peer.sh
# Back here, `python3 scripts/gpu/figures_json.py --bench-dir <bench call's files>
# --tilelang-dir <TileLang call's files> ...` writes the run's figures.json.
# What it checks and times, none of it run on a GPU before:
# - tile-run --bench queues each timed launch behind a write of twice the L2, as do_bench does
#   for the peers (CudaContext::FlushL2); before, each figure held ~5 us of host time.
# - The 4-stage 128x256x64 gemm stores its output with the TMA in two chunks of 64 rows
#   through 32 KiB of staging (tma-stores' chunks); before, it had no room for the TMA store.
# - {cluster=2}: pairs of blocks share B's tile through a TMA multicast.
# - One mbarrier arrival per consumer warpgroup releases a stage slot (it was one per thread).
# - {pingpong=on}: the attention's two consumer warpgroups take turns at their first gemm.
# checks: the gemms at s3/s4 with one tile per block, persistent on 7 SMs and in clusters of two,
#   at ragged and small static shapes and the bf16 op at 512x2048x1024 (grid x even, so the
#   cluster applies), then racecheck, synccheck and memcheck of the cluster and chunked kernels,
#   then every CUDA support-matrix record re-probed (merge matrix_records.json with tile-matrix
#   merge: the sm_90a records went stale with the device library).
# bench: the peers (peer_baselines.py: cuBLAS, cuDNN, ...), then the gemms at 4096^3 and 8192^3
#   over s3/s4 x {default, persistent, cluster=2}, b128 attention full and causal, the same gemms
#   from Python timed by do_bench beside torch.matmul in one process (gemm_do_bench.py), and
#   ncu's view of our bf16 4096^3 gemm and of cuBLAS's (which kernel, tensor-pipe activity).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
PHASE=${1:-}
T=.devrun/bin/tile-run-gpu
source scripts/gpu/env.sh
GEMMS="gemm_bf16_to_bf16 gemm_f16_to_f16"
VARIANTS=(cuda "cuda:sm_90a{persistent=on}" "cuda:sm_90a{cluster=2}")
case $PHASE in
  checks)
    {
      # bf16 over both configs, every variant and shape; f16 at the 4-stage config.
      for case in "gemm_bf16_to_bf16 128x256x64_s3" "gemm_bf16_to_bf16 128x256x64_s4" \
                  "gemm_f16_to_f16 128x256x64_s4"; do
        read -r op cfg <<< "$case"
        for t in cuda "cuda:sm_90a{persistent=on,sms=7}" "cuda:sm_90a{cluster=2}"; do
          for shapes in M=1000,N=1024,K=520 M=4097,N=136,K=72 M=256,N=256,K=64 M=512,N=2048,K=1024; do
            [[ $op == gemm_f16_to_f16 && $shapes == M=256* ]] && continue
            echo "== $op $cfg $t $shapes"
            timeout 60 $T .devrun/ops/$op.tile "--target=$t" --config=$cfg --static-shapes --check \
              --explain --seed=5 --shapes=$shapes 2>&1 |
              grep -E "check |error|Error|warp-specialize" | head -6
            echo "   exit ${PIPESTATUS[0]}"
          done
        done
      done
      # Ping-pong attention ({pingpong=on}): the two consumer warpgroups take turns.
      for op in flash_attn_d128_b128 flash_attn_d128_b128_causal; do
        for shapes in BATCH=2,HEADS=3,SEQ=1000 BATCH=1,HEADS=2,SEQ=4097; do
          echo "== $op {pingpong=on} $shapes"
          timeout 90 $T .devrun/ops/$op.tile "--target=cuda:sm_90a{pingpong=on}" --check --seed=6 \
            --shapes=$shapes 2>&1 | grep -E "check |error|Error" | head -3
          echo "   exit ${PIPESTATUS[0]}"
        done
      done
      for tool in racecheck synccheck memcheck; do
        timeout 150 compute-sanitizer --tool $tool --error-exitcode=9 $T .devrun/ops/gemm_bf16_to_bf16.tile \
          "--target=cuda:sm_90a{cluster=2}" --config=128x256x64_s4 --static-shapes --check \
          --shapes=M=384,N=1024,K=256 2>&1 | tail -3
        echo "gemm 128x256x64_s4 {cluster=2} $tool exit ${PIPESTATUS[0]}"
      done
      for tool in racecheck synccheck; do
        timeout 150 compute-sanitizer --tool $tool --error-exitcode=9 $T .devrun/ops/flash_attn_d128_b128.tile \
          "--target=cuda:sm_90a{pingpong=on}" --check --shapes=BATCH=1,HEADS=2,SEQ=300 2>&1 | tail -3
        echo "attention b128 {pingpong=on} $tool exit ${PIPESTATUS[0]}"
      done
    } 2>&1 | tee "$OUT/gemm_gap_checks.log" || true
    timeout 200 .devrun/bin/tile-matrix-gpu run --backends=cuda --commit="${COMMIT:-unknown}" \
      --out="$OUT/matrix_records.json" 2>&1 | tail -4 | tee "$OUT/matrix.log"
    ;;
  bench)
    env LD_LIBRARY_PATH="$SYSTEM_LD_LIBRARY_PATH" timeout 200 python3 .devrun/peer_baselines.py \
      > "$OUT/peers.log" 2>&1
    grep -E "cublas|sdpa" "$OUT/peers.log"
    {
      for shapes in M=4096,N=4096,K=4096 M=8192,N=8192,K=8192; do
        for op in $GEMMS; do
          for cfg in 128x256x64_s3 128x256x64_s4; do
            for t in "${VARIANTS[@]}"; do
              echo "== $op $shapes $t $cfg"
              timeout 60 $T .devrun/ops/$op.tile "--target=$t" --config=$cfg --bench --static-shapes \
                --iters=30 --warmup=5 --seed=4 --shapes=$shapes 2>&1 | grep -E "^  bench|rror"
            done
          done
        done
      done
      # Dynamic shapes (the divisibility classes give the split): run 19 had them 6% below
      # static; NVRTC's PTX of the two consumer loops is the same, so the gap is to be found.
      for cfg in 128x256x64_s3 128x256x64_s4; do
        echo "== dynamic gemm_bf16_to_bf16 M=4096,N=4096,K=4096 cuda $cfg"
        timeout 60 $T .devrun/ops/gemm_bf16_to_bf16.tile --target=cuda --config=$cfg --bench \
          --iters=30 --warmup=5 --seed=4 --shapes=M=4096,N=4096,K=4096 2>&1 | grep -E "^  bench|rror"
      done
      for op in flash_attn_d128_b128 flash_attn_d128_b128_causal; do
        for t in cuda "cuda:sm_90a{pingpong=on}"; do
          echo "== $op $t"
          timeout 60 $T .devrun/ops/$op.tile "--target=$t" --bench --static-shapes --iters=30 \
            --warmup=3 --seed=4 --shapes=BATCH=4,HEADS=32,SEQ=4096 2>&1 | grep -E "^  bench|rror"
        done
      done
    } 2>&1 | tee "$OUT/gemm_gap_bench.log"
    env LD_LIBRARY_PATH="$SYSTEM_LD_LIBRARY_PATH${NVRTC_DIR:+:$NVRTC_DIR}" PYTHON_SCRIPT=gemm_do_bench.py \
      timeout 150 bash scripts/gpu/run_python_on_device.sh cuda "cuda:sm_90a{cluster=2}" 2>&1 |
      tee "$OUT/gemm_do_bench.log"
    METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_op_hgmma_cycles_active.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,launch__grid_size,launch__cluster_dim_x
    timeout 60 ncu --clock-control none --metrics $METRICS -k regex:gemm -c 1 $T .devrun/ops/gemm_bf16_to_bf16.tile \
      --target=cuda --config=128x256x64_s3 --static-shapes --shapes=M=4096,N=4096,K=4096 --seed=4 \
      > "$OUT/ncu_ours.log" 2>&1
    tail -12 "$OUT/ncu_ours.log"
    printf 'import torch\na = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)\nb = torch.randn_like(a)\nfor _ in range(3): a @ b\ntorch.cuda.synchronize()\n' \
      > /tmp/cublas_one.py
    env LD_LIBRARY_PATH="$SYSTEM_LD_LIBRARY_PATH" timeout 60 ncu --clock-control none --metrics $METRICS \
      -k regex:"gemm|sm90|xmma|cutlass" -s 2 -c 1 python3 /tmp/cublas_one.py > "$OUT/ncu_cublas.log" 2>&1
    tail -12 "$OUT/ncu_cublas.log"
    ;;
  *)
    echo "usage: bash scripts/gpu/gemm_gap.sh checks|bench  (on the GPU machine, OUT set)" >&2
    exit 2
    ;;
esac
