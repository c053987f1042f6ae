#!/usr/bin/env bash
# Runs pytest over the given test files or folders (default: python/tests) with
# Debian's python3 (numpy, pytest and protobuf from scripts/setup.sh) against
# the libtile.so this build made.
set -euo pipefail
export TILE_LIBRARY="$PWD/capi/libtile.so"
export TILE_CACHE_DIR="${TEST_TMPDIR:-/tmp}/tile-cache"
export PYTHONPATH="$PWD/python"
export TEST_SRCDIR_ROOT="$PWD"
exec /usr/bin/python3 -m pytest -p no:cacheprovider -v "${@:-python/tests}"
