"""Grouped-query attention forward, full and causal, as TileLang writes it in
examples/flash_attention/example_gqa_fwd_bshd.py: a @tilelang.jit factory (out_idx=[3], fast
math) whose `heads` query heads share heads // groups K and V heads (query head h reads KV head
h // groups). Tensors are [batch, seq, heads, dim] (BSHD): a block copies one head's tile out
of the middle of Q, K and V. One block per (query tile, query head, batch) with an online
softmax in base 2; `if is_causal:` is Python's, decided at trace time. Q, K, V, Output are
float16. Run it: python3 python/examples/tilelang/gqa_fwd.py"""

import numpy as np

import tile as tilelang
import tile.language as T

from _harness import Inputs, check, f64


@tilelang.jit(out_idx=[3], pass_configs={tilelang.PassConfigKey.TL_ENABLE_FAST_MATH: True})
def flashattn(batch, heads, seq_len, dim, is_causal, groups=1, block_M=64, block_N=64,
              num_stages=0, threads=128):
    scale = (1.0 / dim)**0.5 * 1.44269504  # log2(e)
    head_kv = heads // groups
    q_shape = [batch, seq_len, heads, dim]
    kv_shape = [batch, seq_len, head_kv, dim]
    dtype = T.float16
    accum_dtype = T.float32

    @T.prim_func
    def main(Q: T.Tensor(q_shape, dtype), K: T.Tensor(kv_shape, dtype),
             V: T.Tensor(kv_shape, dtype), Output: T.Tensor(q_shape, dtype)):
        with T.Kernel(T.ceildiv(seq_len, block_M), heads, batch, threads=threads) as (bx, by, bz):
            Q_shared = T.alloc_shared([block_M, dim], dtype)
            K_shared = T.alloc_shared([block_N, dim], dtype)
            V_shared = T.alloc_shared([block_N, dim], dtype)
            O_shared = T.alloc_shared([block_M, dim], dtype)
            acc_s = T.alloc_fragment([block_M, block_N], accum_dtype)
            acc_s_cast = T.alloc_fragment([block_M, block_N], dtype)
            acc_o = T.alloc_fragment([block_M, dim], accum_dtype)
            scores_max = T.alloc_fragment([block_M], accum_dtype)
            scores_max_prev = T.alloc_fragment([block_M], accum_dtype)
            scores_scale = T.alloc_fragment([block_M], accum_dtype)
            scores_sum = T.alloc_fragment([block_M], accum_dtype)
            logsum = T.alloc_fragment([block_M], accum_dtype)

            T.copy(Q[bz, bx * block_M:(bx + 1) * block_M, by, :], Q_shared)
            T.fill(acc_o, 0)
            T.fill(logsum, 0)
            T.fill(scores_max, -T.infinity(accum_dtype))

            loop_range = (T.min(T.ceildiv(seq_len, block_N), T.ceildiv((bx + 1) * block_M, block_N))
                          if is_causal else T.ceildiv(seq_len, block_N))

            for k in T.Pipelined(loop_range, num_stages=num_stages):
                T.copy(K[bz, k * block_N:(k + 1) * block_N, by // groups, :], K_shared)
                if is_causal:
                    for i, j in T.Parallel(block_M, block_N):
                        acc_s[i, j] = T.if_then_else(bx * block_M + i >= k * block_N + j, 0,
                                                     -T.infinity(accum_dtype))
                else:
                    for i, j in T.Parallel(block_M, block_N):
                        acc_s[i, j] = T.if_then_else(k * block_N + j >= seq_len,
                                                     -T.infinity(accum_dtype), 0)
                T.gemm(Q_shared, K_shared, acc_s, transpose_B=True,
                       policy=T.GemmWarpPolicy.FullRow)

                T.copy(scores_max, scores_max_prev)
                T.fill(scores_max, -T.infinity(accum_dtype))
                T.reduce_max(acc_s, scores_max, dim=1, clear=False)
                for i in T.Parallel(block_M):
                    scores_max[i] = T.max(scores_max[i], scores_max_prev[i])
                for i in T.Parallel(block_M):
                    scores_scale[i] = T.exp2(scores_max_prev[i] * scale - scores_max[i] * scale)
                for i, j in T.Parallel(block_M, block_N):
                    acc_s[i, j] = T.exp2(acc_s[i, j] * scale - scores_max[i] * scale)
                T.reduce_sum(acc_s, scores_sum, dim=1)
                for i in T.Parallel(block_M):
                    logsum[i] = logsum[i] * scores_scale[i] + scores_sum[i]
                T.copy(acc_s, acc_s_cast)

                for i, j in T.Parallel(block_M, dim):
                    acc_o[i, j] *= scores_scale[i]

                T.copy(V[bz, k * block_N:(k + 1) * block_N, by // groups, :], V_shared)
                T.gemm(acc_s_cast, V_shared, acc_o, policy=T.GemmWarpPolicy.FullRow)

            for i, j in T.Parallel(block_M, dim):
                acc_o[i, j] /= logsum[i]
            T.copy(acc_o, O_shared)
            T.copy(O_shared, Output[bz, bx * block_M:(bx + 1) * block_M, by, :])

    return main


def ref_program(Q, K, V, is_causal, groups=1):
    # Q: [B, T, HQ, D]; K, V: [B, T, HQ // groups, D]
    dim = Q.shape[-1]
    K = np.repeat(K, groups, axis=2)
    V = np.repeat(V, groups, axis=2)
    scores = np.einsum("bqhd,bkhd->bhqk", Q, K) / np.sqrt(dim)
    if is_causal:
        seq_len = Q.shape[1]
        scores = np.where(np.tril(np.ones((seq_len, seq_len), dtype=bool)), scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return np.einsum("bhqk,bkhd->bqhd", weights, V)


SHAPES = {"default": dict(batch=1, heads=4, seq_len=128, dim=64, groups=2),
          "ragged": dict(batch=2, heads=4, seq_len=111, dim=64, groups=4)}


def run(batch, heads, seq_len, dim, groups, framework="numpy"):
    """Runs the full and the causal kernel on fresh inputs; the largest error against
    float64."""
    inputs = Inputs(framework)
    q = inputs.randn((batch, seq_len, heads, dim), "float16")
    k, v = (inputs.randn((batch, seq_len, heads // groups, dim), "float16") for _ in range(2))
    error = 0.0
    for is_causal in (False, True):
        kernel = flashattn(batch, heads, seq_len, dim, is_causal, groups=groups, block_M=64,
                           block_N=64, num_stages=2, threads=128)
        output = kernel(q, k, v)
        error = max(error, check(f"Output (is_causal={is_causal})", output,
                                 ref_program(f64(q), f64(k), f64(v), is_causal, groups)))
    return error


if __name__ == "__main__":
    print("max error", run(**SHAPES["default"]))
