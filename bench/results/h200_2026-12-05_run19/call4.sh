#!/usr/bin/env bash
# Run 19, call 4 (commit 40735e5, a second machine; carry .devrun): after TMA stores became the
# default: the suite at default and ragged shapes, memcheck of the gemm, and (mistyped: no
# --target, so tile-run refused) the default-config gemms.
BENCH_CASES="" SEED_CASES="" STATIC_CHECK_CASES="" SANITIZE_OPS="gemm_bf16_to_bf16" RACECHECK_OPS="" SKIP_PEERS=1 SKIP_PYTHON=1 RUN_BUDGET_S=140 bash scripts/gpu/run_on_device.sh
