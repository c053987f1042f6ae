"""FlashAttention forward, full and causal, as TileLang writes it in
examples/flash_attention/example_mha_fwd_bhsd.py: a @tilelang.jit factory (out_idx=[3], fast
math) of the problem, is_causal and the tile sizes. One block per (query tile, head, batch); K
and V tiles stream through shared memory in a pipelined loop; scores accumulate in float32 with
an online softmax in base 2. `if is_causal:` is Python's, decided when the factory traces: the
causal kernel visits only the key tiles a query tile can see (queries are the last seq_q of
seq_kv positions), the full one masks the keys past seq_kv. Q, K, V, Output are float16
[batch, heads, seq, dim]. Run it: python3 python/examples/tilelang/flash_attention_fwd.py"""

import numpy as np

import tile as tilelang
import tile.language as T

from _harness import Inputs, check, f64


@tilelang.jit(out_idx=[3], pass_configs={tilelang.PassConfigKey.TL_ENABLE_FAST_MATH: True})
def flashattn(batch, heads, seq_q, seq_kv, dim, is_causal, block_M=64, block_N=64, num_stages=1,
              threads=128):
    scale = (1.0 / dim)**0.5 * 1.44269504  # log2(e)
    q_shape = [batch, heads, seq_q, dim]
    kv_shape = [batch, heads, seq_kv, dim]
    dtype = T.float16
    accum_dtype = T.float32

    past_len = seq_kv - seq_q
    assert past_len >= 0, "seq_kv must be greater than or equal to seq_q"

    @T.prim_func
    def main(Q: T.Tensor(q_shape, dtype), K: T.Tensor(kv_shape, dtype),
             V: T.Tensor(kv_shape, dtype), Output: T.Tensor(q_shape, dtype)):
        with T.Kernel(T.ceildiv(seq_q, block_M), heads, batch, threads=threads) as (bx, by, bz):
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

            T.copy(Q[bz, by, bx * block_M:(bx + 1) * block_M, :], Q_shared)
            T.fill(acc_o, 0)
            T.fill(logsum, 0)
            T.fill(scores_max, -T.infinity(accum_dtype))

            loop_range = (T.min(T.ceildiv(seq_kv, block_N),
                                T.ceildiv((bx + 1) * block_M + past_len, block_N))
                          if is_causal else T.ceildiv(seq_kv, block_N))

            for k in T.Pipelined(loop_range, num_stages=num_stages):
                T.copy(K[bz, by, k * block_N:(k + 1) * block_N, :], K_shared)
                if is_causal:
                    for i, j in T.Parallel(block_M, block_N):
                        q_idx = bx * block_M + i + past_len
                        k_idx = k * block_N + j
                        acc_s[i, j] = T.if_then_else(q_idx >= k_idx, 0, -T.infinity(accum_dtype))
                else:
                    for i, j in T.Parallel(block_M, block_N):
                        acc_s[i, j] = T.if_then_else(k * block_N + j >= seq_kv,
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

                T.copy(V[bz, by, k * block_N:(k + 1) * block_N, :], V_shared)
                T.gemm(acc_s_cast, V_shared, acc_o, policy=T.GemmWarpPolicy.FullRow)

            for i, j in T.Parallel(block_M, dim):
                acc_o[i, j] /= logsum[i]
            T.copy(acc_o, O_shared)
            T.copy(O_shared, Output[bz, by, bx * block_M:(bx + 1) * block_M, :])

    return main


def ref_program(Q, K, V, is_causal):
    dim = Q.shape[-1]
    scores = np.einsum("bhqd,bhkd->bhqk", Q, K) / np.sqrt(dim)
    if is_causal:
        seq_q, seq_kv = Q.shape[2], K.shape[2]
        mask = np.tril(np.ones((seq_q, seq_kv), dtype=bool), seq_kv - seq_q)
        scores = np.where(mask, scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return np.einsum("bhqk,bhkd->bhqd", weights, V)


SHAPES = {"default": dict(batch=1, heads=2, seq_q=128, seq_kv=128, dim=64),
          "ragged": dict(batch=2, heads=1, seq_q=100, seq_kv=177, dim=64)}


def run(batch, heads, seq_q, seq_kv, dim, framework="numpy"):
    """Runs the full and the causal kernel on fresh inputs; the largest error against
    float64."""
    inputs = Inputs(framework)
    q = inputs.randn((batch, heads, seq_q, dim), "float16")
    k, v = (inputs.randn((batch, heads, seq_kv, dim), "float16") for _ in range(2))
    error = 0.0
    for is_causal in (False, True):
        kernel = flashattn(batch, heads, seq_q, seq_kv, dim, is_causal)
        output = kernel(q, k, v)
        error = max(error, check(f"Output (is_causal={is_causal})", output,
                                 ref_program(f64(q), f64(k), f64(v), is_causal)))
    return error


if __name__ == "__main__":
    print("max error", run(**SHAPES["default"]))
