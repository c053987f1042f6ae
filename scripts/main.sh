#!/usr/bin/env bash
# The quick start's main job: installs what is missing, then runs the
# foundation pipeline over the example GEMM kernel with tile-opt, printing the
# IR after each pass that changed it and the time each pass took.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

./scripts/setup.sh
bazel run -c opt //tools:tile-opt -- testdata/examples/gemm.tile \
  --pass-pipeline='simplify,remove-dead-code' --print-ir-after-change --timing "$@"
