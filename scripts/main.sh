#!/usr/bin/env bash
# The quick start's main job: installs what is missing, then compiles every
# kernel of the operator suite for the CPU target (LLVM, JIT), runs each on
# seeded random inputs, checks it against its float64 reference and prints a
# result table. Extra arguments go to tile-run (e.g. --ragged, --seed=7).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

./scripts/setup.sh
bazel run -c opt //tools:tile-run -- --all --target=cpu "$@"
