#!/usr/bin/env bash
# Run 18, call 2: the Python call path after the launch fast path (the last launch kept with
# its arguments' signature, cuCtxGetCurrent before cuCtxSetCurrent, tile.Kernel's call in C,
# no per-call argument vector in the C API): the Python package's checks and per-call times,
# the launch-overhead benchmark and the peers' launch figures, in one call. Call 3 times
# TileLang's call on the machine still warm.
export SKIP_SUITE=1 SKIP_MATRIX=1
export BENCH_CASES="" STATIC_CHECK_CASES="" SEED_CASES="" SANITIZE_OPS="" RACECHECK_OPS=""
RUN_BUDGET_S=${RUN_BUDGET_S:-400} bash scripts/gpu/run_on_device.sh
