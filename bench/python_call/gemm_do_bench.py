"""Our GEMM and cuBLAS timed by one method in one process, on the GPU machine.

The peers' figures (peer_baselines.py, tilelang_peer.py) come from triton.testing.do_bench:
each call queued behind a write of 256 MB (the L2 then holds none of the operands), CUDA
events around it, the median. tile-run's --bench now does the same (CudaContext::FlushL2);
this script is the cross-check: the tile program of the suite's 16-bit-output gemm
(python/examples/gemm.py's matmul at 128x256x64, 3 stages, 256 threads, C in the inputs' type)
with its shapes as constants (what tile-run --static-shapes compiles), compiled for each target
given, and torch.matmul (cuBLAS), alternating in one process so that clocks and the machine are
the same for both. Every kernel is checked against float64 first.

Run by scripts/gpu/run_python_on_device.sh's environment:
  python3 gemm_do_bench.py [TARGET ...]     (default: cuda, cuda:sm_90a{persistent=on})
Prints one line per figure and, last, every result as one JSON line starting "gemm_do_bench "."""

import json
import sys

import torch
from triton.testing import do_bench

# Beside this file in the GPU bundle (scripts/gpu/build_bundle.sh): python/examples.
import gemm


def main():
    targets = sys.argv[1:] or ["cuda", "cuda:sm_90a{persistent=on}"]
    results = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
               "method": "triton.testing.do_bench(warmup=50, rep=300, return_mode='median')",
               "figures": []}
    for dtype, torch_dtype in (("bfloat16", torch.bfloat16), ("float16", torch.float16)):
        for size in (4096, 8192):
            a = torch.randn(size, size, device="cuda", dtype=torch_dtype)
            b = torch.randn(size, size, device="cuda", dtype=torch_dtype)
            flops = 2.0 * size ** 3
            reference = a.double() @ b.double()
            program = gemm.matmul(block_N=256, num_stages=3, threads=256, dtype=dtype,
                                  out_dtype=dtype, shape=(size, size, size),
                                  name=f"gemm_{dtype}_{size}")
            kernels = {t: program.compile(t) for t in targets}
            for target, kernel in kernels.items():
                c = torch.full((size, size), float("nan"), device="cuda", dtype=torch_dtype)
                kernel(a, b, c)
                torch.cuda.synchronize()
                error = float((c.double() - reference).norm() / reference.norm())
                if not error < 1e-2:
                    print(f"gemm {dtype} {size}^3 {target}: relative error {error}: FAIL")
                    return 1
            # Alternate: ours, cuBLAS, ours, cuBLAS, so neither gets the cooler GPU.
            for _ in range(2):
                for target, kernel in kernels.items():
                    c = torch.empty(size, size, device="cuda", dtype=torch_dtype)
                    ms = do_bench(lambda: kernel(a, b, c), warmup=50, rep=300,
                                  return_mode="median")
                    results["figures"].append({"name": f"ours {target}", "dtype": dtype,
                                               "size": size, "tflops": flops / ms / 1e9})
                ms = do_bench(lambda: a @ b, warmup=50, rep=300, return_mode="median")
                results["figures"].append({"name": "cublas", "dtype": dtype, "size": size,
                                           "tflops": flops / ms / 1e9})
            for f in results["figures"][-2 * (len(targets) + 1):]:
                print(f"{f['dtype']:9s} {f['size']}^3 {f['name']:40s} {f['tflops']:7.1f} TFLOP/s",
                      flush=True)
    print("gemm_do_bench " + json.dumps(results), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
