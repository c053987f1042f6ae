"""Host time per call, one method for every peer the Python-call figures compare
(torch_on_gpu.py for ours, torch's, Triton's and CuPy's; tilelang_call.py for TileLang's)."""

import time

import torch


def per_call_us(call, calls=20000, repeats=5):
    """Host time per call in µs: `calls` calls back to back, then one synchronization; the
    median of `repeats` such runs, after 200 calls of warm-up."""
    for _ in range(200):
        call()
    torch.cuda.synchronize()
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            call()
        torch.cuda.synchronize()
        runs.append((time.perf_counter() - start) / calls * 1e6)
    return sorted(runs)[len(runs) // 2]


def host_us(call, calls=128, repeats=51):
    """Host time per call in µs with the GPU kept out of it: `calls` calls timed back to back
    with no synchronization inside the timed span, fewer than the launch queue holds, so no
    call waits for the GPU to drain the queue (per_call_us's 20,000 calls fill it: there the
    figure is the slower of the host's enqueue and the GPU's pace of retiring tiny kernels).
    The median of `repeats` such runs, each after a synchronization, after 200 calls of
    warm-up."""
    for _ in range(200):
        call()
    runs = []
    for _ in range(repeats):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(calls):
            call()
        runs.append((time.perf_counter() - start) / calls * 1e6)
    torch.cuda.synchronize()
    return sorted(runs)[len(runs) // 2]
