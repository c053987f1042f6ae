#!/bin/bash
# Runs pingpong_probe.cu's variants under racecheck (device machine; see README.md).
source scripts/gpu/env.sh
D=bench/results/h100_2026-12-07_run24
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
compute-sanitizer --version | tail -1
for v in 0 1 2 3 4 5; do
  echo "== variant $v"
  timeout 60 compute-sanitizer --tool racecheck --racecheck-report all --print-limit 4 $D/probe $v
  echo "exit $?"
done
