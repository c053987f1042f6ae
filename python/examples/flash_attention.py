"""TileLang's FlashAttention forward in tile.language: one block per (query
tile, head, batch); K and V tiles stream through shared memory in a pipelined
loop; scores accumulate in float32 fragments with an online softmax (running
row max, rescaled running sum and output), P goes back to float16 for the
second gemm. Q, K, V, O are float16 [batch, heads, seq, dim].
Run it: python3 python/examples/flash_attention.py"""

import math

import numpy as np

import tile.language as T


def flashattn(dim=64, block_M=64, block_N=64, causal=False, num_stages=2, threads=128,
              name="flash_attention"):
    BATCH, HEADS, SEQ = T.symbolic("BATCH"), T.symbolic("HEADS"), T.symbolic("SEQ")
    shape = (BATCH, HEADS, SEQ, dim)
    dtype, accum_dtype = "float16", "float32"
    # softmax(q.k / sqrt(dim)) through exp2: fold log2(e) into the score scale; exp2_ftz, as a
    # probability below 2^-126 adds nothing to a row sum of at least 1 (ops/ops_attention.cc).
    scale = math.log2(math.e) / math.sqrt(dim)

    @T.prim_func(name=name)
    def main(Q: T.Tensor(shape, dtype), K: T.Tensor(shape, dtype), V: T.Tensor(shape, dtype),
             O: T.Tensor(shape, dtype)):
        with T.Kernel(T.ceildiv(SEQ, block_M), HEADS, BATCH, threads=threads) as (bx, by, bz):
            Q_s = T.alloc_shared((block_M, dim), dtype)
            K_s = T.alloc_shared((block_N, dim), dtype)
            V_s = T.alloc_shared((block_N, dim), dtype)
            O_s = T.alloc_shared((block_M, dim), dtype)
            S = T.alloc_fragment((block_M, block_N), accum_dtype)
            P = T.alloc_fragment((block_M, block_N), dtype)
            acc_o = T.alloc_fragment((block_M, dim), accum_dtype)
            row_max = T.alloc_fragment((block_M,), accum_dtype)
            prev_max = T.alloc_fragment((block_M,), accum_dtype)
            rescale = T.alloc_fragment((block_M,), accum_dtype)
            tile_sum = T.alloc_fragment((block_M,), accum_dtype)
            row_sum = T.alloc_fragment((block_M,), accum_dtype)

            T.copy(Q[bz, by, bx * block_M, 0], Q_s)
            T.clear(acc_o)
            T.clear(row_sum)
            T.fill(row_max, -T.infinity(accum_dtype))
            # A causal query tile sees no key past its own last row.
            key_tiles = (T.min(T.ceildiv(SEQ, block_N), T.ceildiv((bx + 1) * block_M, block_N))
                         if causal else T.ceildiv(SEQ, block_N))
            for k in T.Pipelined(key_tiles, num_stages=num_stages):
                T.copy(K[bz, by, k * block_N, 0], K_s)
                # The mask is the gemm's starting value: 0 where a query may see a key, -inf
                # elsewhere (keys past SEQ read as zeros and must not count).
                for i, j in T.Parallel(block_M, block_N):
                    visible = k * block_N + j < SEQ
                    if causal:
                        visible = visible & (bx * block_M + i >= k * block_N + j)
                    S[i, j] = T.if_then_else(visible, 0, -T.infinity(accum_dtype))
                T.gemm(Q_s, K_s, S, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)
                T.copy(row_max, prev_max)
                T.reduce_max(S, row_max, dim=1, clear=False)
                # Key 0 is visible to every query, so row_max is finite after the first tile.
                for i in T.Parallel(block_M):
                    rescale[i] = T.exp2_ftz(prev_max[i] * scale - row_max[i] * scale)
                for i, j in T.Parallel(block_M, dim):
                    acc_o[i, j] = acc_o[i, j] * rescale[i]
                for i, j in T.Parallel(block_M, block_N):
                    S[i, j] = T.exp2_ftz(S[i, j] * scale - row_max[i] * scale)
                T.reduce_sum(S, tile_sum, dim=1)
                for i in T.Parallel(block_M):
                    row_sum[i] = row_sum[i] * rescale[i] + tile_sum[i]
                for i, j in T.Parallel(block_M, block_N):
                    P[i, j] = T.cast(S[i, j], dtype)
                T.copy(V[bz, by, k * block_N, 0], V_s)
                T.gemm(P, V_s, acc_o, policy=T.GemmWarpPolicy.FullRow)
            for i, j in T.Parallel(block_M, dim):
                O_s[i, j] = T.cast(acc_o[i, j] / row_sum[i], dtype)
            T.copy(O_s, O[bz, by, bx * block_M, 0])

    return main


def reference(q, k, v, causal):
    """Attention in float64."""
    q, k, v = (x.astype(np.float64) for x in (q, k, v))
    scores = q @ k.swapaxes(-1, -2) / math.sqrt(q.shape[-1])
    if causal:
        seq = q.shape[-2]
        scores = np.where(np.tril(np.ones((seq, seq), dtype=bool)), scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (weights / weights.sum(axis=-1, keepdims=True)) @ v


def main(batch=2, heads=1, seq=177, dim=64, causal=False, seed=0):
    """Runs the kernel on the CPU at a sequence length that does not divide its tiles, with O
    poisoned, and returns the largest error against float64 numpy."""
    kernel = flashattn(dim=dim, causal=causal)
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((batch, heads, seq, dim)).astype(np.float16) for _ in range(3))
    o = np.full((batch, heads, seq, dim), np.nan, dtype=np.float16)
    kernel(q, k, v, o)
    expected = reference(q, k, v, causal)
    np.testing.assert_allclose(o.astype(np.float64), expected, rtol=2e-3, atol=2e-3)
    return float(np.max(np.abs(o - expected)))


if __name__ == "__main__":
    for causal in (False, True):
        print(f"flash attention 2x1x177x64{' causal' if causal else ''} on the CPU: max error "
              f"{main(causal=causal):.3g} against float64 numpy")
