#!/usr/bin/env bash
# Run 19, call 2 (same machine, warm; carry .devrun): peers, then the gemm and attention variants.
RUN_BUDGET_S=200 bash scripts/gpu/persistent_check.sh bench
