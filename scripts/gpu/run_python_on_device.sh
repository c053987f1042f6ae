#!/usr/bin/env bash
# Runs ON the GPU machine (a step of run_on_device.sh, or alone with the bundle
# carried): the tile Python package on torch CUDA tensors, with libtile-gpu.so
# and the C call path from .devrun (bench/python_call/torch_on_gpu.py).
# The machine's python3 keeps its own zlib and OpenSSL: only the bundle's
# libraries that Ubuntu lacks (Abseil, protobuf, Bazel's) are put on the path,
# so ours never shadow the ones Python's own modules were built against.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
BUNDLE=$PWD/.devrun
PYLIB=$(mktemp -d /tmp/tile-pylib.XXXX)
for lib in "$BUNDLE"/lib/*; do
  case $(basename "$lib") in libz.so* | libcrypto.so* | libssl.so*) continue ;; esac
  ln -s "$lib" "$PYLIB/"
done
export LD_LIBRARY_PATH="$PYLIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export TILE_LIBRARY=$BUNDLE/lib/libtile-gpu.so
export TILE_LAUNCH_EXTENSION=$BUNDLE/python/_launch.abi3.so
export TILE_CACHE_DIR=${TILE_CACHE_DIR:-/tmp/tile-python-cache}
export PYTHONPATH=$BUNDLE/python PYTHONUNBUFFERED=1
# PYTHON_SCRIPT: another script of the bundle's python/examples (gemm_do_bench.py).
exec python3 "$BUNDLE/python/examples/${PYTHON_SCRIPT:-torch_on_gpu.py}" "$@"
