#!/usr/bin/env bash
# Sourced on the GPU machine from the repository root, by run_on_device.sh and by any command a
# device call runs after it (tile-run-gpu, tile-matrix-gpu need the bundle's libraries):
#   source scripts/gpu/env.sh
# Sets CUDA_HOME, PATH (the toolkit, compute-sanitizer), NVRTC_DIR, SYSTEM_LD_LIBRARY_PATH (the
# machine's own, for Python) and LD_LIBRARY_PATH (the bundle's libraries first). Idempotent.
BUNDLE=${BUNDLE:-.devrun}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
[[ ":$PATH:" == *":$CUDA_HOME/bin:"* ]] || export PATH="$PATH:$CUDA_HOME/bin:$CUDA_HOME/compute-sanitizer"
# NVRTC (libnvrtc.so.13, 110 MB) does not travel: find the machine's own, in
# the toolkit or in the nvidia-* Python packages.
NVRTC_DIR=""
for dir in "$CUDA_HOME/lib64" "$CUDA_HOME/targets/x86_64-linux/lib" \
  $(python3 -c 'import glob, sys; print(" ".join(sorted({p.rsplit("/", 1)[0] for d in sys.path for p in glob.glob(d + "/nvidia/*/lib/libnvrtc.so.13")})))' 2>/dev/null); do
  if [[ -e $dir/libnvrtc.so.13 ]]; then NVRTC_DIR=$dir; break; fi
done
# Our libraries first, the machine's after them (the driver's folder among
# them), NVRTC's last. Python (the peers) keeps the machine's own path: our
# Abseil, protobuf and zlib are for our binaries only.
SYSTEM_LD_LIBRARY_PATH=${SYSTEM_LD_LIBRARY_PATH-${LD_LIBRARY_PATH:-}}
export LD_LIBRARY_PATH="$PWD/$BUNDLE/lib${SYSTEM_LD_LIBRARY_PATH:+:$SYSTEM_LD_LIBRARY_PATH}${NVRTC_DIR:+:$NVRTC_DIR}"
