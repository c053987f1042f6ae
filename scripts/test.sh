#!/usr/bin/env bash
# Installs what is missing, then builds and runs every test (offline), then
# the wheel's tests (scripts/test_wheel.sh, from PyPI: numpy, protobuf, torch), then
# the fuzz smoke: every fuzz target for 30 seconds (scripts/fuzz.sh), which
# fails the run when one crashes. TILE_FUZZ_SECONDS=0 skips the smoke.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

./scripts/setup.sh
echo "test: bazel test //... --test_output=errors"
bazel test //... --test_output=errors "$@"

# The pip wheel, installed into a fresh venv and tested from outside the checkout with Debian's
# copies of its bundled libraries hidden; torch is installed into that venv too, so tile.torch's
# operators are tested under torch.compile (issue 40). TILE_WHEEL_TORCH=0 leaves torch out.
echo "test: scripts/test_wheel.sh (TILE_WHEEL_TORCH=${TILE_WHEEL_TORCH:-1})"
TILE_WHEEL_TORCH=${TILE_WHEEL_TORCH:-1} ./scripts/test_wheel.sh

FUZZ_SECONDS=${TILE_FUZZ_SECONDS:-30}
if [[ "$FUZZ_SECONDS" != 0 ]]; then
  echo "test: scripts/fuzz.sh $FUZZ_SECONDS"
  ./scripts/fuzz.sh "$FUZZ_SECONDS"
fi
