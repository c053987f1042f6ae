"""The tile Python package on torch CUDA tensors, on the GPU machine (issue 15).

1. TileLang's GEMM and FlashAttention examples (python/examples), written in
   tile.language, compiled for "cuda" and run on torch tensors: outputs poisoned
   with NaN, shapes that do not divide the tiles included, compared with torch in
   float64 (GEMM) and with torch's SDPA in float32 (attention).
2. Host time per call from Python with three torch tensors and a cached kernel
   (a 1024-element add), through tile's C call path and through its ctypes path,
   beside torch, Triton and CuPy doing the same call in the same process.

Run by scripts/gpu/run_python_on_device.sh (a step of run_on_device.sh); prints a
table and, last, every result as one JSON line starting "python_call "."""

import json
import math
import sys

import torch

import tile
import tile.language as T
from tile import _lib

# Beside this file in the GPU bundle (scripts/gpu/build_bundle.sh): python/examples and
# bench/python_call/call_timing.py.
import flash_attention
import gemm
import layernorm
import mla_decode
from call_timing import host_us, per_call_us

RESULTS = {"torch": torch.__version__, "python": sys.version.split()[0], "checks": [],
           "call_us": {}}


def record_check(name, error, tolerance):
    passed = bool(math.isfinite(error) and error <= tolerance)
    RESULTS["checks"].append({"name": name, "max_rel_error": error, "tolerance": tolerance,
                              "passed": passed})
    print(f"check {name:48s} rel err {error:.3e} (tol {tolerance:.0e}) "
          f"{'PASS' if passed else 'FAIL'}", flush=True)


def relative_error(out, ref):
    out, ref = out.double(), ref.double()
    if not torch.isfinite(out).all():
        return float("inf")
    return float((out - ref).norm() / ref.norm())


def check_gemm(dtype_name, torch_dtype, shapes, config):
    kernel = gemm.matmul(dtype=dtype_name, name=f"gemm_{dtype_name}", **config).compile("cuda")
    for (M, N, K) in shapes:
        a = torch.randn(M, K, device="cuda", dtype=torch_dtype)
        b = torch.randn(K, N, device="cuda", dtype=torch_dtype)
        c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float32)
        kernel(a, b, c)
        torch.cuda.synchronize()
        record_check(f"gemm {dtype_name} {M}x{N}x{K} {config}", relative_error(
            c, a.double() @ b.double()), 1e-3)


def check_attention(batch, heads, seq, dim, causal, config):
    kernel = flash_attention.flashattn(dim=dim, causal=causal, **config).compile("cuda")
    q, k, v = (torch.randn(batch, heads, seq, dim, device="cuda", dtype=torch.float16)
               for _ in range(3))
    o = torch.full_like(q, float("nan"))
    kernel(q, k, v, o)
    torch.cuda.synchronize()
    ref = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                                           is_causal=causal)
    record_check(f"attention {batch}x{heads}x{seq}x{dim} causal={causal} {config}",
                 relative_error(o, ref), 2e-3)


def check_mla_decode(batch, seq, target):
    """TileLang's MLA decode at its own config (dim 512 + 64, block_H = block_N = 64, 2
    stages, 256 threads), against float64 torch; timed with CUDA events for the record."""
    heads, dim, pe_dim = 128, 512, 64
    kernel = mla_decode.mla_decode(heads=heads, dim=dim, pe_dim=pe_dim, block_N=64, block_H=64,
                                   num_stages=2, threads=256).compile(target)
    q = torch.randn(batch, heads, dim, device="cuda", dtype=torch.float16)
    q_pe = torch.randn(batch, heads, pe_dim, device="cuda", dtype=torch.float16)
    kv = torch.randn(batch, seq, dim, device="cuda", dtype=torch.float16)
    k_pe = torch.randn(batch, seq, pe_dim, device="cuda", dtype=torch.float16)
    out = torch.full((batch, heads, dim), float("nan"), device="cuda", dtype=torch.float16)
    kernel(q, q_pe, kv, k_pe, out)
    torch.cuda.synchronize()
    scores = (torch.einsum("bhd,bsd->bhs", q.double(), kv.double()) +
              torch.einsum("bhd,bsd->bhs", q_pe.double(), k_pe.double()))
    weights = torch.softmax(scores / math.sqrt(dim + pe_dim), dim=-1)
    ref = torch.einsum("bhs,bsd->bhd", weights, kv.double())
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(3):
        kernel(q, q_pe, kv, k_pe, out)
    start.record()
    for _ in range(20):
        kernel(q, q_pe, kv, k_pe, out)
    end.record()
    torch.cuda.synchronize()
    us = start.elapsed_time(end) * 1000 / 20
    RESULTS.setdefault("mla_decode_us", {})[f"{batch}x{seq} {target}"] = us
    record_check(f"mla decode {batch}x{heads}x{seq} dim {dim}+{pe_dim} {target} ({us:.1f} us)",
                 relative_error(out, ref), 2e-3)


def check_layernorm(N, D):
    """TileLang's LayerNorm forward and backward (bfloat16 in, float32 statistics and weight
    gradients) against float64 torch; D = 1 is the shape whose backward atomics once ran on
    every thread of the block (issue 37)."""
    fwd = layernorm.layernorm_fwd(N, D).compile("cuda")
    bwd = layernorm.layernorm_bwd(N, D).compile("cuda")
    x, dy = (torch.randn(N, D, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    gamma, beta = (torch.randn(D, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    y = torch.full((N, D), float("nan"), device="cuda", dtype=torch.bfloat16)
    mean, rstd = (torch.full((N,), float("nan"), device="cuda") for _ in range(2))
    fwd(x, gamma, beta, y, mean, rstd)
    dx = torch.full((N, D), float("nan"), device="cuda", dtype=torch.bfloat16)
    dgamma, dbeta = (torch.zeros(D, device="cuda") for _ in range(2))
    bwd(dy, x, gamma, mean, rstd, dx, dgamma, dbeta)
    torch.cuda.synchronize()
    xr, gr, br = (t.double().requires_grad_() for t in (x, gamma, beta))
    yr = torch.nn.functional.layer_norm(xr, (D,), gr, br, eps=1e-5)
    yr.backward(dy.double())
    worst = 0.0
    for got, want in ((y, yr.detach()), (dx, xr.grad), (dgamma, gr.grad), (dbeta, br.grad)):
        err = (got.double() - want).abs() / (1.0 + want.abs())
        worst = max(worst, float(err.max()) if torch.isfinite(got).all() else float("inf"))
    record_check(f"layernorm fwd+bwd bf16 {N}x{D}", worst, 3e-2)


def add_kernel():
    N = T.symbolic("N")

    @T.prim_func(name="add_f32")
    def add(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32"),
            C: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, 256), threads=256) as bx:
            for i in T.Parallel(256):
                C[bx * 256 + i] = A[bx * 256 + i] + B[bx * 256 + i]

    return add.compile("cuda")


def time_calls():
    a, b = (torch.randn(1024, device="cuda") for _ in range(2))
    c = torch.full_like(a, float("nan"))
    kernel = add_kernel()
    kernel(a, b, c)
    torch.cuda.synchronize()
    record_check("add 1024 (the timed kernel)", relative_error(c, a + b), 1e-6)
    print(f"tile call path: {kernel.call_path}; torch.Tensor has the DLPack C exchange table: "
          f"{_lib.launch_extension is not None and _lib.launch_extension.has_exchange_api(a)}",
          flush=True)
    RESULTS["exchange_api"] = bool(_lib.launch_extension is not None
                                   and _lib.launch_extension.has_exchange_api(a))
    timings = RESULTS["call_us"]
    host = RESULTS.setdefault("host_us", {})
    timings["tile_c_path"] = per_call_us(lambda: kernel(a, b, c))
    host["tile_c_path"] = host_us(lambda: kernel(a, b, c))
    launcher = kernel._launcher
    kernel._launcher = None
    timings["tile_ctypes_path"] = per_call_us(lambda: kernel(a, b, c), calls=5000)
    kernel._launcher = launcher
    timings["torch_add_out"] = per_call_us(lambda: torch.add(a, b, out=c))
    host["torch_add_out"] = host_us(lambda: torch.add(a, b, out=c))
    try:
        import triton
        import triton.language as tl

        @triton.jit
        def triton_add(x, y, z, n, BLOCK: tl.constexpr):
            offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            mask = offsets < n
            tl.store(z + offsets, tl.load(x + offsets, mask=mask) + tl.load(y + offsets, mask=mask),
                     mask=mask)

        timings["triton"] = per_call_us(lambda: triton_add[(4,)](a, b, c, 1024, BLOCK=256))
        host["triton"] = host_us(lambda: triton_add[(4,)](a, b, c, 1024, BLOCK=256))
    except Exception as error:  # noqa: BLE001  (a peer that fails is reported, not fatal)
        print(f"triton failed: {error}")
    try:
        import cupy
        source = r'''extern "C" __global__ void add(const float* a, const float* b, float* c, int n) {
          int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }'''
        raw = cupy.RawKernel(source, "add")
        ca, cb, cc = (cupy.asarray(t) for t in (a, b, c))
        timings["cupy_raw_kernel"] = per_call_us(lambda: raw((4,), (256,), (ca, cb, cc, 1024)))
        host["cupy_raw_kernel"] = host_us(lambda: raw((4,), (256,), (ca, cb, cc, 1024)))
    except Exception as error:  # noqa: BLE001
        print(f"cupy failed: {error}")
    for name, value in timings.items():
        print(f"call {name:24s} {value:7.2f} us per call (1024-element add, 3 tensors)")
    for name, value in host.items():
        print(f"host {name:24s} {value:7.2f} us per call, the GPU kept out (host_us)")


def main():
    print(f"torch {torch.__version__}, python {RESULTS['python']}, "
          f"{torch.cuda.get_device_name()}", flush=True)
    time_calls()
    config = dict(block_M=128, block_N=256, block_K=64, num_stages=4, threads=256)
    check_gemm("float16", torch.float16, [(4096, 4096, 4096), (1000, 776, 336)], config)
    check_gemm("bfloat16", torch.bfloat16, [(1000, 777, 333), (4097, 129, 65)], {})
    for causal in (False, True):
        check_attention(4, 8, 1024, 128, causal,
                        dict(block_M=128, block_N=128, num_stages=2, threads=256))
        check_attention(2, 3, 1000, 64, causal, {})
    for N, D in ((32, 1), (33, 2), (1000, 777), (4096, 1024)):
        check_layernorm(N, D)
    for target in ("cuda", "cuda:sm_90a{warp_specialize=off}"):
        for batch, seq in ((4, 1000), (32, 8192)):
            check_mla_decode(batch, seq, target)
    print("python_call " + json.dumps(RESULTS), flush=True)
    failed = [c["name"] for c in RESULTS["checks"] if not c["passed"]]
    print(f"python on torch: {len(RESULTS['checks']) - len(failed)}/{len(RESULTS['checks'])} "
          f"checks passed; C path {RESULTS['call_us'].get('tile_c_path', float('nan')):.2f} us "
          "per call", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
