#!/usr/bin/env bash
# The mma.sync path on the H200 next to the default (wgmma) in the same run: gemm_f16 and
# gemm_bf16 4096^3 at the operators' own 128x128x64 config with TILE_CUDA_WGMMA=0 (every gemm
# on mma.sync), and the instruction counts of both kernels' SASS.
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export PATH="$PATH:$CUDA_HOME/bin"
NVRTC_DIR=""
for dir in "$CUDA_HOME/lib64" "$CUDA_HOME/targets/x86_64-linux/lib" \
  $(python3 -c 'import glob, sys; print(" ".join(sorted({p.rsplit("/", 1)[0] for d in sys.path for p in glob.glob(d + "/nvidia/*/lib/libnvrtc.so.13")})))' 2>/dev/null); do
  if [[ -e $dir/libnvrtc.so.13 ]]; then NVRTC_DIR=$dir; break; fi
done
export LD_LIBRARY_PATH="$PWD/.devrun/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}${NVRTC_DIR:+:$NVRTC_DIR}"
for mode in default mma; do
  for op in gemm_f16 gemm_bf16; do
    dir=/tmp/sass-$mode
    echo "== $op 4096^3, $mode ($([[ $mode == mma ]] && echo TILE_CUDA_WGMMA=0 || echo TILE_CUDA_WGMMA unset))"
    env $([[ $mode == mma ]] && echo TILE_CUDA_WGMMA=0) .devrun/bin/tile-run-gpu .devrun/ops/$op.tile \
      --target=cuda --bench --iters=20 --warmup=3 --seed=4 --static-shapes \
      --shapes=M=4096,N=4096,K=4096 --dump-cubin=$dir 2>&1 | grep -E "bench|error"
    cuobjdump --dump-sass $dir/$op.cubin > $dir/$op.sass
    printf '   SASS:'; for i in HGMMA HMMA LDSM LDGSTS BAR; do printf ' %s %s' $i "$(grep -cE "\b$i\b|\b$i\." $dir/$op.sass)"; done; echo
    cuobjdump --dump-resource-usage $dir/$op.cubin | grep -oE "REG:[0-9]+|SHARED:[0-9]+" | paste -sd' ' | sed 's/^/   /'
  done
done
