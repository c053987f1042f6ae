#!/usr/bin/env bash
# Installs what is missing, then builds and runs every test (offline).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

./scripts/setup.sh
echo "test: bazel test //... --test_output=errors"
exec bazel test //... --test_output=errors "$@"
