"""The examples (python/examples/, TileLang's GEMM, FlashAttention and MLA decode as a user
writes them) compile for the CPU and match float64 numpy at shapes that do not
divide their tiles, with every output element poisoned (NaN) before the call."""

import numpy as np
import pytest

import flash_attention
import gemm
import layernorm
import mla_decode
import tile


@pytest.mark.parametrize("shape", [(257, 191, 97), (1, 1, 1), (128, 128, 64), (300, 70, 200)])
def test_gemm_matches_numpy(shape):
    M, N, K = shape
    assert gemm.main(M=M, N=N, K=K) < 1e-3


def test_gemm_with_constant_shapes_and_16_bit_output():
    # What bench/python_call/gemm_do_bench.py compiles: the shapes as constants, C rounded to
    # the inputs' type in the store; a ragged M, and a call of other shapes is refused.
    kernel = gemm.matmul(dtype="float16", out_dtype="float16", shape=(200, 128, 96),
                         name="gemm_const").compile("cpu")
    rng = np.random.default_rng(2)
    a = rng.standard_normal((200, 96)).astype(np.float16)
    b = rng.standard_normal((96, 128)).astype(np.float16)
    c = np.full((200, 128), np.nan, dtype=np.float16)
    kernel(a, b, c)
    reference = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c.astype(np.float64), reference, rtol=2e-3, atol=2e-2)
    with pytest.raises(Exception, match="dimension 0 is 100 but must be 200"):
        kernel(a[:100], b, c[:100])


def test_gemm_transposed_and_float32():
    import tile.language as T
    M, N, K = T.symbolic("M"), T.symbolic("N"), T.symbolic("K")

    @T.prim_func
    def gemm_nt(A: T.Tensor((M, K), "float32"), B: T.Tensor((N, K), "float32"),
                C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, 64), T.ceildiv(M, 64), threads=128) as (bx, by):
            A_s = T.alloc_shared((64, 32), "float32")
            B_s = T.alloc_shared((64, 32), "float32")
            C_l = T.alloc_fragment((64, 64), "float32")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, 32), num_stages=2):
                T.copy(A[by * 64, k * 32], A_s)
                T.copy(B[bx * 64, k * 32], B_s)
                T.gemm(A_s, B_s, C_l, transpose_B=True)
            T.copy(C_l, C[by * 64, bx * 64])

    rng = np.random.default_rng(1)
    a = rng.standard_normal((100, 45)).astype(np.float32)
    b = rng.standard_normal((77, 45)).astype(np.float32)
    c = np.full((100, 77), np.nan, np.float32)
    tile.compile(gemm_nt, target="cpu")(a, b, c)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.T.astype(np.float64), rtol=1e-4,
                               atol=1e-4)


@pytest.mark.parametrize("causal", [False, True])
def test_flash_attention_matches_numpy(causal):
    assert flash_attention.main(batch=2, heads=1, seq=177, causal=causal) < 2e-3


def test_flash_attention_short_sequence():
    assert flash_attention.main(batch=1, heads=3, seq=5, causal=True) < 2e-3


def test_mla_decode_matches_numpy():
    assert mla_decode.main(batch=2, seq=100) < 2e-3


@pytest.mark.parametrize("shape", [(300, 129), (32, 1), (33, 2), (1, 1), (64, 256)])
def test_layernorm_forward_and_backward_match_numpy(shape):
    # (32, 1): the backward's atomic adds outside parallel loops (its D-wide loop has one
    # iteration); they must add once per block, not once per thread.
    errors = layernorm.main(*shape)
    assert max(errors.values()) < 1e-5, errors
