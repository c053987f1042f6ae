"""Our GEMM and cuBLAS timed by one method in one process, on the GPU machine.

The peers' figures (peer_baselines.py, tilelang_peer.py) come from triton.testing.do_bench:
each call queued behind a write of 256 MB (the L2 then holds none of the operands), CUDA
events around it, the median. tile-run's --bench now does the same (CudaContext::FlushL2);
this script is the cross-check: the tile program of the suite's 16-bit-output gemm, written in
tile.language with its shapes as constants (what tile-run --static-shapes compiles), compiled
for each target given, and torch.matmul (cuBLAS), alternating in one process so that clocks and
the machine are the same for both. Every kernel is checked against float64 first.

Run by scripts/gpu/run_python_on_device.sh's environment:
  python3 gemm_do_bench.py [TARGET ...]     (default: cuda, cuda:sm_90a{persistent=on})
Prints one line per figure and, last, every result as one JSON line starting "gemm_do_bench "."""

import json
import sys

import torch
from triton.testing import do_bench

import tile.language as T


def gemm_program(M, N, K, dtype, block_M=128, block_N=256, block_K=64, num_stages=3,
                 threads=256):
    @T.prim_func(name=f"gemm_{dtype}_{M}")
    def gemm(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            T.use_swizzle(panel_size=8)
            A_s = T.alloc_shared((block_M, block_K), dtype)
            B_s = T.alloc_shared((block_K, block_N), dtype)
            C_l = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_s)
                T.copy(B[k * block_K, bx * block_N], B_s)
                T.gemm(A_s, B_s, C_l)
            T.copy(C_l, C[by * block_M, bx * block_N])

    return gemm


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
            kernels = {t: gemm_program(size, size, size, dtype).compile(t) for t in targets}
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
