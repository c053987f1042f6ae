"""TileLang's host time per call, the peer of torch_on_gpu.py's figures: the same
1024-element add of three torch float32 tensors, compiled by TileLang, called
back to back with the kernel cached, then one synchronization (the median of
five runs of 20,000 calls; and host_us, with the GPU kept out). Runs on the GPU machine with TileLang unpacked
(../shared/tools/tilelang_peer/README.md); prints one "tilelang_call_us" line."""

import tilelang
import tilelang.language as T
import torch

from call_timing import host_us, per_call_us


def add(n, block=256):
    @T.prim_func
    def main(A: T.Tensor((n,), "float32"), B: T.Tensor((n,), "float32"),
             C: T.Tensor((n,), "float32")):
        with T.Kernel(T.ceildiv(n, block), threads=block) as bx:
            for i in T.Parallel(block):
                C[bx * block + i] = A[bx * block + i] + B[bx * block + i]

    return main


def main():
    kernel = tilelang.compile(add(1024))
    a, b = (torch.randn(1024, device="cuda") for _ in range(2))
    c = torch.full_like(a, float("nan"))
    kernel(a, b, c)
    torch.cuda.synchronize()
    error = float((c - (a + b)).abs().max())
    print(f"tilelang add 1024: max error {error:.3g}")
    print(f"tilelang_call_us {per_call_us(lambda: kernel(a, b, c)):.2f}")
    print(f"torch_add_out_us {per_call_us(lambda: torch.add(a, b, out=c)):.2f}")
    print(f"tilelang_host_us {host_us(lambda: kernel(a, b, c)):.2f}")
    print(f"torch_add_out_host_us {host_us(lambda: torch.add(a, b, out=c)):.2f}")


if __name__ == "__main__":
    main()
