#!/usr/bin/env bash
# Run 17, call 3, on the tree after the register-operand gemm merge (e33eed9 and on): the CUDA
# device library changed (tl::gemm_rs), so every CUDA support-matrix record is re-probed; the
# suite at default and ragged shapes, the Python package again, the attention kernels' SASS
# (both gemms HGMMA, S kept in registers), memcheck and racecheck of the attention. No peers:
# call 1 holds this run's figures.
export BENCH_CASES="flash_attn_d128_b128:BATCH=4,HEADS=32,SEQ=4096 flash_attn_d128_b128_causal:BATCH=4,HEADS=32,SEQ=4096 \
gemm_bf16_to_bf16@128x256x64_s4:M=4096,N=4096,K=4096"
export STATIC_CHECK_CASES="gemm_bf16_to_bf16@128x256x64_s4:M=1000,N=777,K=333"
export SEED_CASES=""
export SANITIZE_OPS="flash_attn_d128_b128 flash_attn_d64_causal"
export RACECHECK_OPS="flash_attn_d128_b128 flash_attn_d64"
export SKIP_PEERS=1
RUN_BUDGET_S=${RUN_BUDGET_S:-500} bash scripts/gpu/run_on_device.sh
for op in flash_attn_d128_b128 flash_attn_d128_b128_causal; do
  cubin=/tmp/tile-bench-cubin/$op.cubin
  [[ -f $cubin ]] || continue
  {
    echo "== $op SASS ($cubin)"
    cuobjdump --dump-resource-usage "$cubin"
    sass=$(cuobjdump --dump-sass "$cubin")
    for ins in HGMMA UTMALDG SYNCS USETMAXREG STS LDS SHFL.BFLY MUFU.EX2 STL LDL; do
      printf '%s %s\n' "$ins" "$(grep -cE "\b${ins//./\\.}\b" <<<"$sass")"
    done
    grep -E 'HGMMA' <<<"$sass" | sed -E 's/^ *\/\*[0-9a-f]+\*\/ *//' | awk '{print $1}' | sort | uniq -c
  } >>"$OUT/sass.log" 2>&1
done
tail -40 "$OUT/sass.log"
