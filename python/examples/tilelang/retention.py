"""Chunked retention forward (RetNet's multi-scale retention) as TileLang writes it in
examples/linear_attention/example_retention_fwd.py: a @tilelang.jit factory (out_idx=3) whose
kernel gives each head its decay gamma = 1 - 2^(-5 - head) (log2 of it in a T.alloc_var,
assigned as Python assigns) and walks the sequence in chunks of 64: within a chunk the scores
q k^T are weighted by gamma^(row - col) below the diagonal, across chunks the state h carries
k^T v decayed by gamma per position. Blocks split DK and DV into 64-wide tiles; each DK tile
writes its own slice O[i_k] and `postprocess` sums them. Q, K, V, O are float16 [B, S, H, D].

TileLang's asserts S % 64 == 0; here the last chunk is partial: rows past S read as zeros and
the writes past S are dropped. Run it: python3 python/examples/tilelang/retention.py"""

import numpy as np

import tile as tilelang
import tile.language as T

from _harness import Inputs, check, f64


@tilelang.jit(out_idx=3, pass_configs={"tl.disable_warp_specialized": True})
def chunk_retention_fwd_kernel(B, S, H, DK, DV, dtype=T.float16, scale=None):
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
    def chunk_retention_fwd(Q: T.Tensor([B, S, H, DK], dtype), K: T.Tensor([B, S, H, DK], dtype),
                            V: T.Tensor([B, S, H, DV], dtype),
                            O: T.Tensor([NK, B, S, H, DV], dtype)):
        with T.Kernel(NV, NK, B * H) as (i_v, i_k, i_bh):
            i_b = i_bh // H
            i_h = i_bh % H
            log_decay = T.alloc_var(T.float32)
            log_decay = T.log2(1 - T.exp2(-5.0 - 1.0 * i_h))  # the head's decay, log2

            q = T.alloc_shared([chunk_size, BK], dtype)
            k = T.alloc_shared([chunk_size, BK], dtype)
            v = T.alloc_shared([chunk_size, BV], dtype)
            h = T.alloc_fragment([BK, BV], accum_dtype)
            h_shared = T.alloc_shared([BK, BV], dtype)
            s = T.alloc_fragment([chunk_size, chunk_size], accum_dtype)
            s_shared = T.alloc_shared([chunk_size, chunk_size], dtype)
            o = T.alloc_fragment([chunk_size, BV], accum_dtype)
            T.clear(h)

            T.use_swizzle(10)

            for i in T.Pipelined(0, NT):
                for row, col in T.Parallel(chunk_size, BK):
                    q[row, col] = Q[i_b, i * chunk_size + row, i_h, i_k * BK + col] * scale
                T.copy(K[i_b, i * chunk_size:(i + 1) * chunk_size, i_h, i_k * BK:(i_k + 1) * BK], k)
                T.copy(V[i_b, i * chunk_size:(i + 1) * chunk_size, i_h, i_v * BV:(i_v + 1) * BV], v)

                T.gemm(q, k, s, clear_accum=True, transpose_B=True)
                for row, col in T.Parallel(chunk_size, chunk_size):
                    s_shared[row, col] = T.if_then_else(
                        row >= col, s[row, col] * T.exp2((row - col) * log_decay), 0)

                T.copy(h, h_shared)
                T.gemm(q, h_shared, o, clear_accum=True)
                for row, col in T.Parallel(chunk_size, BV):
                    o[row, col] = T.exp2((row + 1) * log_decay) * o[row, col]
                T.gemm(s_shared, v, o)

                for row, col in T.Parallel(chunk_size, BV):
                    v[row, col] = v[row, col] * T.exp2((chunk_size - row - 1) * log_decay)
                for row, col in T.Parallel(BK, BV):
                    h[row, col] = T.exp2(chunk_size * log_decay) * h[row, col]
                T.copy(o, O[i_k, i_b, i * chunk_size:(i + 1) * chunk_size, i_h,
                            i_v * BV:(i_v + 1) * BV])
                T.gemm(k, v, h, transpose_A=True)

    return chunk_retention_fwd


def postprocess(o):
    return o[0] if o.shape[0] == 1 else o.sum(0)


def ref_program(q, k, v, scale=None):
    """Retention o_t = sum_{s <= t} gamma_h^(t - s) (scale q_t . k_s) v_s with
    gamma_h = 1 - 2^(-5 - h) ([B, S, H, D] in)."""
    if scale is None:
        scale = q.shape[-1]**-0.5
    seq, heads = q.shape[1], q.shape[2]
    gamma = 1 - 2.0**(-5.0 - np.arange(heads))
    distance = np.arange(seq)[:, None] - np.arange(seq)[None, :]
    decay = np.where(distance >= 0, gamma[:, None, None]**np.maximum(distance, 0), 0)
    scores = np.einsum("bthd,bshd->bhts", q * scale, k) * decay
    return np.einsum("bhts,bshe->bthe", scores, v)


SHAPES = {"default": dict(B=1, S=128, H=2, D=64), "ragged": dict(B=2, S=150, H=2, D=128)}


def run(B, S, H, D, framework="numpy"):
    """Runs the kernel on fresh inputs; the largest error of the summed O against float64."""
    inputs = Inputs(framework)
    q, k, v = (inputs.randn((B, S, H, D), "float16") for _ in range(3))
    o = chunk_retention_fwd_kernel(B, S, H, D, D)(q, k, v)
    return check("O", postprocess(f64(o)), ref_program(f64(q), f64(k), f64(v)))


if __name__ == "__main__":
    print("max error", run(**SHAPES["default"]))
