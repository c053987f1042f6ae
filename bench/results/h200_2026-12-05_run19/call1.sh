#!/usr/bin/env bash
# Run 19, call 1 (commit a69fb89, carry .devrun): correctness of persistent tiles, TMA stores and
# divisibility-specialized dynamic shapes; the suite; every CUDA support-matrix record.
bash scripts/gpu/persistent_check.sh checks
