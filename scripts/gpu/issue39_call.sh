#!/usr/bin/env bash
# Runs ON the GPU machine (carry [".devrun"]): issue 39's bars. The examples of
# python/examples/tilelang/ with torch tensors on CUDA (examples.json, .log), then TileLang's own
# programs with only their imports changed (programs.json, .log; packed beforehand by
# scripts/gpu/pack_tilelang_programs.sh). Here: build_bundle.sh, pack_tilelang_programs.sh.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
: "${OUT:?issue39_call: OUT is set by the device tool}"
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader > "$OUT/gpu.txt"
python3 -c "import torch; print('torch', torch.__version__, torch.version.cuda)" >> "$OUT/gpu.txt"
if [[ -n ${MATRIX:-} ]]; then  # re-probe the support matrix's CUDA records (merge them here)
  (source scripts/gpu/env.sh
   timeout 200 .devrun/bin/tile-matrix-gpu run --backends=cuda --seed=1 \
     --commit="$(sed -n 's/^commit //p' .devrun/MANIFEST)" --out="$OUT/matrix_records.json") \
    > "$OUT/matrix.log" 2>&1
  tail -3 "$OUT/matrix.log"
fi
export TILE_CACHE_DIR=/tmp/tile-cache-issue39
mkdir -p "$TILE_CACHE_DIR" && chmod 700 "$TILE_CACHE_DIR"
EXAMPLES=$PWD/.devrun/python/examples
PYTHON_SCRIPT=tilelang_examples_on_gpu.py timeout ${EXAMPLES_LIMIT:-300} \
  bash scripts/gpu/run_python_on_device.sh "$EXAMPLES/tilelang" "$OUT/examples.json" \
  > "$OUT/examples.log" 2>&1
tail -3 "$OUT/examples.log"
if [[ -d .devrun/tilelang_programs ]]; then
  PYTHON_SCRIPT=tilelang_programs_on_gpu.py timeout ${PROGRAMS_LIMIT:-420} \
    bash scripts/gpu/run_python_on_device.sh "$PWD/.devrun/tilelang_programs" \
    "$OUT/programs.json" > "$OUT/programs.log" 2>&1
  cat "$OUT/programs.log" | grep -E '^(pass|fail|timeout|missing)|TileLang programs pass'
fi
