#!/usr/bin/env bash
# One-off tile-config sweep of gemm_bf16 at 4096^3 (static shapes), each config checked at 1024^3 first.
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVRTC_DIR=""
for dir in "$CUDA_HOME/lib64" "$CUDA_HOME/targets/x86_64-linux/lib" \
  $(python3 -c 'import glob, sys; print(" ".join(sorted({p.rsplit("/", 1)[0] for d in sys.path for p in glob.glob(d + "/nvidia/*/lib/libnvrtc.so.13")})))' 2>/dev/null); do
  if [[ -e $dir/libnvrtc.so.13 ]]; then NVRTC_DIR=$dir; break; fi
done
export LD_LIBRARY_PATH="$PWD/.devrun/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}${NVRTC_DIR:+:$NVRTC_DIR}"
for f in .devrun/variants/gemm_bf16_*.tile; do
  c=$(.devrun/bin/tile-run-gpu "$f" --target=cuda --check --static-shapes --seed=7 --shapes=M=1024,N=1024,K=1024 2>&1 | grep -E "^PASS|^FAIL|error" | head -1)
  b=$(.devrun/bin/tile-run-gpu "$f" --target=cuda --bench --iters=30 --warmup=5 --static-shapes --seed=4 --shapes=M=4096,N=4096,K=4096 2>&1 | grep -E "bench|error" | head -1)
  echo "$(basename $f) | $c | $b"
done
