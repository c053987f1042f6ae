#!/usr/bin/env bash
# Installs what is missing, then builds and runs every test (offline), then
# the fuzz smoke: every fuzz target for 30 seconds (scripts/fuzz.sh), which
# fails the run when one crashes. TILE_FUZZ_SECONDS=0 skips the smoke.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

./scripts/setup.sh
echo "test: bazel test //... --test_output=errors"
bazel test //... --test_output=errors "$@"

FUZZ_SECONDS=${TILE_FUZZ_SECONDS:-30}
if [[ "$FUZZ_SECONDS" != 0 ]]; then
  echo "test: scripts/fuzz.sh $FUZZ_SECONDS"
  ./scripts/fuzz.sh "$FUZZ_SECONDS"
fi
