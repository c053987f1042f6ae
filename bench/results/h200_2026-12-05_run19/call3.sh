#!/usr/bin/env bash
# Run 19, call 3 (same machine, warm; carry .tlw: TileLang 0.1.15): TileLang host time per call.
bash bench/results/h200_2026-12-04_run18/call3.sh
