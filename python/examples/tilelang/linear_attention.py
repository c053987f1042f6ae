"""Chunked causal linear attention forward as TileLang writes it in
examples/linear_attention/example_linear_attn_fwd.py (FLA's fused_chunk_linear_attn): a
@tilelang.jit factory (out_idx=[4], the final state) whose kernel walks the sequence in chunks
of 64, carrying the state h = sum k^T v in a float32 fragment: each chunk's output is its
causally masked q k^T v plus q h of the chunks before it. Blocks split DK and DV into 64-wide
tiles, so each DK tile's share of O is added with a tile T.atomic_add into a float32 O the
caller zeroes. Q, K, V are float16 [B, S, H, D]; O and final_state are float32.

TileLang's asserts S % 64 == 0; here the last chunk is partial: rows past S read as zeros (and
add nothing to h), and the writes and atomic adds past S are dropped.
Run it: python3 python/examples/tilelang/linear_attention.py"""

import numpy as np

import tile as tilelang
import tile.language as T

from _harness import Inputs, check, f64


@tilelang.jit(out_idx=[4], pass_configs={tilelang.PassConfigKey.TL_DISABLE_WARP_SPECIALIZED: True})
def tl_fused_chunk_fwd_kernel(B, S, H, DK, DV, dtype=T.float16, scale=None):
    if scale is None:
        scale = DK**-0.5
    accum_dtype = T.float32

    chunk_size = 64
    BK = BV = 64
    assert DK % BK == 0 and DV % BV == 0
    NK = tilelang.cdiv(DK, BK)
    NV = tilelang.cdiv(DV, BV)
    NT = tilelang.cdiv(S, chunk_size)

    @T.prim_func
    def fused_chunk_linear_attn_fwd(Q: T.Tensor([B, S, H, DK], dtype),
                                    K: T.Tensor([B, S, H, DK], dtype),
                                    V: T.Tensor([B, S, H, DV], dtype),
                                    O: T.Tensor([B, S, H, DV], accum_dtype),
                                    final_state: T.Tensor([B, H, DK, DV], accum_dtype)):
        with T.Kernel(NV, NK, B * H) as (i_v, i_k, i_bh):
            i_b = i_bh // H
            i_h = i_bh % H

            q = T.alloc_shared([chunk_size, BK], dtype)
            k = T.alloc_shared([chunk_size, BK], dtype)
            v = T.alloc_shared([chunk_size, BV], dtype)
            h = T.alloc_fragment([BK, BV], accum_dtype)
            h_shared = T.alloc_shared([BK, BV], dtype)
            s = T.alloc_fragment([chunk_size, chunk_size], accum_dtype)
            s_shared = T.alloc_shared([chunk_size, chunk_size], dtype)
            o = T.alloc_fragment([chunk_size, BV], accum_dtype)
            o_shared = T.alloc_shared([chunk_size, BV], accum_dtype)

            T.use_swizzle(10)

            T.clear(h)

            for i in T.Pipelined(0, NT):
                for row, col in T.Parallel(chunk_size, BK):
                    q[row, col] = Q[i_b, i * chunk_size + row, i_h, i_k * BK + col] * scale
                T.copy(K[i_b, i * chunk_size:(i + 1) * chunk_size, i_h, i_k * BK:(i_k + 1) * BK], k)
                T.copy(V[i_b, i * chunk_size:(i + 1) * chunk_size, i_h, i_v * BV:(i_v + 1) * BV], v)

                T.gemm(q, k, s, clear_accum=True, transpose_B=True)
                for row, col in T.Parallel(chunk_size, chunk_size):
                    s_shared[row, col] = T.if_then_else(row >= col, s[row, col], 0)

                T.gemm(s_shared, v, o, clear_accum=True)
                T.copy(h, h_shared)
                T.gemm(k, v, h, transpose_A=True)
                T.gemm(q, h_shared, o)
                T.copy(o, o_shared)
                T.atomic_add(
                    O[i_b, i * chunk_size:(i + 1) * chunk_size, i_h, i_v * BV:(i_v + 1) * BV],
                    o_shared)

            T.copy(h, final_state[i_b, i_h, i_k * BK:(i_k + 1) * BK, i_v * BV:(i_v + 1) * BV])

    return fused_chunk_linear_attn_fwd


def ref_program(q, k, v, scale=None):
    """Causal linear attention o_t = sum_{s <= t} (scale q_t . k_s) v_s, and the final state
    sum_s k_s^T v_s, per batch entry and head ([B, S, H, D] in)."""
    if scale is None:
        scale = q.shape[-1]**-0.5
    seq = q.shape[1]
    scores = np.einsum("bthd,bshd->bhts", q * scale, k) * np.tril(np.ones((seq, seq)))
    o = np.einsum("bhts,bshe->bthe", scores, v)
    h = np.einsum("bshd,bshe->bhde", k, v)
    return o, h


SHAPES = {"default": dict(B=1, S=128, H=2, D=64), "ragged": dict(B=2, S=150, H=1, D=128)}


def run(B, S, H, D, framework="numpy"):
    """Runs the kernel on fresh inputs (q and k of about unit norm, as TileLang's l2-normalized
    ones); the largest error of O and the final state against float64."""
    inputs = Inputs(framework)
    q, k = (inputs.randn((B, S, H, D), "float16", scale=D**-0.5) for _ in range(2))
    v = inputs.randn((B, S, H, D), "float16")
    o = inputs.zeros((B, S, H, D), "float32")  # the kernel adds into it
    final_state = tl_fused_chunk_fwd_kernel(B, S, H, D, D)(q, k, v, o)
    o_ref, h_ref = ref_program(f64(q), f64(k), f64(v))
    return max(check("O", o, o_ref), check("final_state", final_state, h_ref))


if __name__ == "__main__":
    print("max error", run(**SHAPES["default"]))
