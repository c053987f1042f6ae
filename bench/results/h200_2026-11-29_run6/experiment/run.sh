#!/bin/bash
# Runs every variant binary in its own process (a bad descriptor must not take the others down).
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
for b in bin/*; do timeout 60 $b 2>&1 | sed "s|^|$(basename $b): |"; done
python3 - <<'PY'
import torch
a=torch.randn(4096,4096,device='cuda',dtype=torch.bfloat16); b=torch.randn(4096,4096,device='cuda',dtype=torch.bfloat16)
for _ in range(5): a@b
s=torch.cuda.Event(enable_timing=True); e=torch.cuda.Event(enable_timing=True)
s.record()
for _ in range(30): a@b
e.record(); torch.cuda.synchronize(); us=s.elapsed_time(e)*1000/30
print(f"cuBLAS bf16 4096^3 (torch): {us:.1f} us {2*4096**3/us/1e6:.1f} TFLOP/s")
PY
