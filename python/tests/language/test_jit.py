"""TileLang's JIT surface: @tile.jit (lazy and eager forms), out_idx, tile.compile with
pass_configs, the kernel's source and profiler. Kernels run on the CPU target with numpy
arrays against float64 references."""

import numpy as np
import pytest

import tile
import tile as tilelang
import tile.language as T
from tile import _targets
from tile.profiler import do_bench

RNG = np.random.default_rng(3)


@tilelang.jit(out_idx=[-1])
def matmul(M, N, K, block_M, block_N, block_K, dtype="float16", accum_dtype="float"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
                T.copy(A[by * block_M, ko * block_K], A_shared)
                T.copy(B[ko * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])
    return main


def reference(a, b):
    return a.astype(np.float64) @ b.astype(np.float64)


@pytest.mark.parametrize("shape", [(128, 128, 64), (100, 90, 70)])
def test_lazy_factory_with_out_idx(shape):
    m, n, k = shape
    kernel = matmul(m, n, k, 64, 64, 32)
    assert matmul(m, n, k, 64, 64, 32) is kernel  # traced once per arguments
    a = RNG.standard_normal((m, k)).astype(np.float16)
    b = RNG.standard_normal((k, n)).astype(np.float16)
    c = kernel(a, b)
    assert c.shape == (m, n) and c.dtype == np.float16
    np.testing.assert_allclose(c.astype(np.float64), reference(a, b), rtol=1e-2, atol=2e-2)
    assert kernel(A=a, B=b).shape == (m, n)


def test_out_idx_forms_and_several_outputs():
    M = T.symbolic("M")

    @T.prim_func
    def split(X: T.Tensor((M, 8), "float32"), Lo: T.Tensor((M, 8), "float32"),
              scale: T.float32, Hi: T.Tensor((M, 8), "float32")):
        with T.Kernel(T.ceildiv(M, 16), threads=32) as bx:
            for i, j in T.Parallel(16, 8):
                row = bx * 16 + i
                if row < M:
                    Lo[row, j] = T.min(X[row, j], 0) * scale
                    Hi[row, j] = T.max(X[row, j], 0) * scale

    x = RNG.standard_normal((21, 8)).astype(np.float32)
    for out_idx in ([1, 3], [1, -1], (-3, 3)):
        kernel = tile.compile(split, out_idx=out_idx, target="cpu")
        lo, hi = kernel(x, 2.0)
        np.testing.assert_allclose(lo, np.minimum(x, 0) * 2)
        np.testing.assert_allclose(hi, np.maximum(x, 0) * 2)
    one = tile.compile(split, out_idx=-1)
    lo = np.full_like(x, np.nan)
    hi = one(x, lo, 0.5)
    np.testing.assert_allclose(hi, np.maximum(x, 0) * 0.5)
    with pytest.raises(ValueError, match="out_idx 2 names the scalar parameter 'scale'"):
        tile.compile(split, out_idx=2)
    with pytest.raises(ValueError, match="out_idx 7 is out of range for its 4 parameters"):
        tile.compile(split, out_idx=[7])
    with pytest.raises(TypeError, match=r"'Hi' is an output, made by the call"):
        tile.compile(split, out_idx=[1, 3])(x, scale=1.0, Hi=x)


def test_an_output_dim_no_input_gives_is_refused():
    M, R = T.symbolic("M"), T.symbolic("R")

    @T.prim_func
    def widen(X: T.Tensor((M,), "float32"), Y: T.Tensor((M, R), "float32")):
        with T.Kernel(1, threads=32):
            for i in T.serial(M):
                Y[i, 0] = X[i]

    with pytest.raises(ValueError, match=r"output \(out_idx\) 'Y': its dim 'R' is not the "
                                         r"extent of any input tensor's axis"):
        tile.compile(widen, out_idx=[1])(np.ones(4, np.float32))


def test_pass_configs_map_to_target_options_or_are_refused_by_name():
    assert _targets.options_of({tile.PassConfigKey.TL_DISABLE_WARP_SPECIALIZED: True},
                               "cuda:sm_90a") == {"warp_specialize": "off"}
    assert _targets.options_of({"tl.disable_tma_lower": True}, "cuda:sm_90a") == {
        "warp_specialize": "off", "tma_store": "off"}
    assert _targets.options_of({"tl.disable_tma_lower": True}, "cuda:sm_80") == {}
    assert _targets.options_of({tile.PassConfigKey.TL_ENABLE_FAST_MATH: True}, "cpu") == {}
    assert _targets.with_options("cuda:sm_90a{gemm=mma}", {"warp_specialize": "off"}) == (
        "cuda:sm_90a{gemm=mma,warp_specialize=off}")
    with pytest.raises(NotImplementedError, match="pass_configs: 'tl.layout_cost_model' has no "
                                                  "meaning in tile"):
        tile.compile(matmul.get_tir(64, 64, 64, 64, 64, 32),
                     pass_configs={"tl.layout_cost_model": "x"})
    assert _targets.resolve("llvm") == "cpu"


def test_source_ir_and_profiler_on_the_cpu():
    kernel = matmul(96, 64, 48, 32, 32, 16)
    source = kernel.get_kernel_source()
    assert "define" in source and "main" in source  # LLVM IR of the CPU target
    assert "kernel main(" in kernel.ir()
    profiler = kernel.get_profiler(tensor_supply_type=tilelang.TensorSupplyType.Normal)
    profiler.assert_allclose(reference, rtol=1e-2, atol=2e-2)
    with pytest.raises(AssertionError, match=r"differ at \d+ of 6144 elements"):
        profiler.assert_allclose(lambda a, b: reference(a, b) + 1.0)
    latency = profiler.do_bench(warmup=1, rep=5)
    assert latency > 0
    assert do_bench(lambda: None, warmup=1, rep=2) >= 0


@tilelang.jit
def eager_matmul(A, B, block_M: int = 64, block_N: int = 64, block_K: int = 32):
    M, N, K = T.const("M, N, K")
    dtype = T.float16
    A: T.Tensor((M, K), dtype)
    B: T.Tensor((K, N), dtype)
    C = T.empty((M, N), dtype)
    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
        A_shared = T.alloc_shared((block_M, block_K), dtype)
        B_shared = T.alloc_shared((block_K, block_N), dtype)
        C_local = T.alloc_fragment((block_M, block_N), T.float32)
        T.clear(C_local)
        for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
            T.copy(A[by * block_M, ko * block_K], A_shared)
            T.copy(B[ko * block_K, bx * block_N], B_shared)
            T.gemm(A_shared, B_shared, C_local)
        for i, j in T.Parallel(block_M, block_N):
            C_local[i, j] = T.max(C_local[i, j], 0)
        T.copy(C_local, C[by * block_M, bx * block_N])
    return C


def test_eager_form_runs_on_call_and_compiles_by_size():
    a = RNG.standard_normal((100, 70)).astype(np.float16)
    b = RNG.standard_normal((70, 90)).astype(np.float16)
    want = np.maximum(reference(a, b), 0)
    c = eager_matmul(a, b)
    np.testing.assert_allclose(c.astype(np.float64), want, rtol=1e-2, atol=2e-2)
    kernel = eager_matmul.compile(M=100, N=90, K=70, block_M=32)
    np.testing.assert_allclose(kernel(a, b).astype(np.float64), want, rtol=1e-2, atol=2e-2)
    assert "alloc A_shared: shared f16[32, 32]" in kernel.ir()
    with pytest.raises(ValueError, match="T.const: no value for size 'K'"):
        eager_matmul.compile(M=100, N=90)
    with pytest.raises(ValueError, match="makes its outputs with T.empty"):
        tilelang.jit(out_idx=[-1])(eager_matmul.func)


def test_tilelang_spellings_dtype_and_shared_fragment():
    assert T.dtype("float16") == T.float16 and T.dtype(T.float) == T.float32

    @T.prim_func
    def k(X: T.Tensor((64,), "float32"), Y: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=32):
            # TileLang makes alloc_fragment(scope="shared") a shared buffer.
            S = T.alloc_fragment((64,), "float32", scope="shared")
            T.copy(X, S)
            T.copy(S, Y)

    assert "alloc S: shared f32[64]" in k.compile().ir()
    x = RNG.standard_normal(64).astype(np.float32)
    y = np.full_like(x, np.nan)
    k(x, y)
    assert (y == x).all()


def test_a_dtype_is_the_string_of_its_tilelang_spelling():
    # TileLang's programs write getattr(torch, input_dtype) with input_dtype = T.float32, and
    # key dicts by dtype strings.
    import types
    torch_like = types.SimpleNamespace(float32="torch.float32", bfloat16="torch.bfloat16")
    assert getattr(torch_like, T.float32) == "torch.float32"
    assert getattr(torch_like, T.bfloat16) == "torch.bfloat16"
    assert {"float16": 2}[T.float16] == 2 and {T.float16: 3}["float16"] == 3
    assert isinstance(T.float32, str) and T.float32 == "f32" and T.float32 != "float16"
    assert f"{T.float8_e4m3}" == "float8_e4m3fn" and repr(T.int8) == "T.int8"
    assert T.float == T.float32 and hash(T.float) == hash("float32")


def test_names_that_are_keywords_of_the_text_form():
    # TileLang's convolution names its weight `kernel`; a buffer may be called `copy`.
    @T.prim_func
    def k(data: T.Tensor((16,), "float32"), kernel: T.Tensor((16,), "float32"),
          out: T.Tensor((16,), "float32")):
        with T.Kernel(1, threads=32):
            copy = T.alloc_shared((16,), "float32")
            T.copy(kernel, copy)
            for i in T.Parallel(16):
                out[i] = data[i] * copy[i]

    text = k.compile().ir()
    assert "kernel_: f32[16]" in text and "alloc copy_: shared" in text
    x, w = RNG.standard_normal(16).astype(np.float32), RNG.standard_normal(16).astype(np.float32)
    y = np.full_like(x, np.nan)
    k(x, kernel=w, out=y)
    np.testing.assert_allclose(y, x * w, rtol=1e-6)
    np.testing.assert_allclose(tile.compile(k, out_idx=-1)(x, kernel=w), x * w, rtol=1e-6)


def test_several_kernel_blocks_share_global_workspaces():
    # TileLang's split-KV decoding: one block writes partial results to T.alloc_global
    # workspaces, the next combines them; the call makes the workspaces and runs both in order.
    M = T.symbolic("M")
    parts = 4

    @T.prim_func
    def split_sum(X: T.Tensor((M, 64), "float32"), Y: T.Tensor((M,), "float32")):
        partial = T.alloc_global((M, parts), "float32")
        with T.Kernel(M, parts, threads=32) as (bx, by):
            row = T.alloc_fragment((16,), "float32")
            total = T.alloc_fragment((1,), "float32")
            T.copy(X[bx, by * 16:(by + 1) * 16], row)
            T.reduce_sum(row, total, dim=0)
            partial[bx, by] = total[0]
        with T.Kernel(M, threads=32) as bx:
            acc = T.alloc_var("float32", init=0)
            for p in T.serial(parts):
                acc += partial[bx, p]
            Y[bx] = acc

    assert split_sum.kernel_names == ["split_sum", "split_sum_1"]
    x = RNG.standard_normal((37, 64)).astype(np.float32)
    y = tile.compile(split_sum, out_idx=-1)(x)
    np.testing.assert_allclose(y, x.astype(np.float64).sum(axis=1), rtol=1e-5, atol=1e-5)
    z = np.full(37, np.nan, np.float32)
    split_sum(x, z)
    np.testing.assert_allclose(z, y, rtol=1e-6)
    with pytest.raises(ValueError, match="has 2 T.Kernel blocks"):
        split_sum.compile()
