#!/usr/bin/env bash
# Run 18, call 3, right after call 2 on the warm machine: TileLang 0.1.15's host time per call
# (bench/python_call/tilelang_call.py, the same 1024-element add and timing loop as ours).
set -uo pipefail
mkdir -p /tmp/tl && tar -xJf .tlw/tl_site.tar.xz -C /tmp/tl
export PYTHONPATH=/tmp/tl CUDA_HOME=/usr/local/cuda PATH=$PATH:/usr/local/cuda/bin PYTHONUNBUFFERED=1
python3 bench/python_call/tilelang_call.py 2>&1 | tee "$OUT/tilelang_call.txt"
