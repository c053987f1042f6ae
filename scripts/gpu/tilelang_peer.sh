#!/usr/bin/env bash
# TileLang 0.1.15 compiling the same tile programs (../shared/tools/tilelang_peer/tilelang_peer.py:
# GEMM, FlashAttention fwd full and causal, RMSNorm), timed by do_bench as the peers are. Its
# bundle (~45 MB, `bash ../shared/tools/tilelang_peer/pack.sh .tlw`, plus tilelang_peer.py beside
# it) does not fit one call with .devrun: run this as its own call (carry .tlw) right after the
# call that measured ours, on the same warm machine, so that the ratios compare one machine.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
mkdir -p /tmp/tl && tar -xJf .tlw/tl_site.tar.xz -C /tmp/tl
export PYTHONPATH=/tmp/tl CUDA_HOME=/usr/local/cuda PATH=$PATH:/usr/local/cuda/bin PYTHONUNBUFFERED=1
timeout 500 python3 .tlw/tilelang_peer.py 2>&1 | tee "${OUT:-.}/tilelang_peer.log"
