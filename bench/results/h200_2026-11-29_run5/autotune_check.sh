#!/usr/bin/env bash
# CUDA autotune check (see below).
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVRTC_DIR=""
for dir in "$CUDA_HOME/lib64" "$CUDA_HOME/targets/x86_64-linux/lib" \
  $(python3 -c 'import glob, sys; print(" ".join(sorted({p.rsplit("/", 1)[0] for d in sys.path for p in glob.glob(d + "/nvidia/*/lib/libnvrtc.so.13")})))' 2>/dev/null); do
  if [[ -e $dir/libnvrtc.so.13 ]]; then NVRTC_DIR=$dir; break; fi
done
export LD_LIBRARY_PATH="$PWD/.devrun/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}${NVRTC_DIR:+:$NVRTC_DIR}"
# CUDA autotuning through the kernel cache, twice: the second run must read the choice.
for attempt in 1 2; do
  echo "== autotune gemm_f16 4096^3, attempt $attempt"
  .devrun/bin/tile-run-gpu gemm_f16 --target=cuda --autotune --explain \
    --shapes=M=4096,N=4096,K=4096 --cache-dir=/tmp/tile-cache --iters=10 2>&1 | tail -25
done
