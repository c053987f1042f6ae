#!/usr/bin/env bash
# Run 17, call 2, right after call 1 on the warm machine: TileLang 0.1.15 compiling the same
# programs (../shared/tools/tilelang_peer/tilelang_peer.py, carried in .tlw) and its host time
# per call (bench/python_call/tilelang_call.py).
set -uo pipefail
mkdir -p /tmp/tl && tar -xJf .tlw/tl_site.tar.xz -C /tmp/tl
export PYTHONPATH=/tmp/tl CUDA_HOME=/usr/local/cuda PATH=$PATH:/usr/local/cuda/bin PYTHONUNBUFFERED=1
python3 bench/python_call/tilelang_call.py 2>&1 | tee "$OUT/tilelang_call.txt"
python3 .tlw/tilelang_peer.py 2>&1 | tee "$OUT/tilelang.txt"
