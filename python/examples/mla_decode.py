"""TileLang's DeepSeek MLA decode (examples/deepseek_mla/example_mla_decode.py) in
tile.language: one query token per batch entry, `heads` query heads sharing one latent KV head
of width dim (512) plus a rotary part of width pe_dim (64). A block takes block_H heads of one
batch entry; KV and K_pe tiles stream through shared memory in a 2-stage pipelined loop;
scores accumulate in float32 with an online softmax; the probabilities go back to float16
through shared memory for the second gemm. Q, KV are float16.
Run it: python3 python/examples/mla_decode.py (a narrow variant on the CPU).

At TileLang's own config (dim 512 + 64, block_H = block_N = 64, 2 stages, 256 threads) the
kernel fits sm_90a's shared memory, warp-specialized (230,432 bytes: the consumers' O_shared
takes Q_shared's bytes once they are done with it) or not (230,400), against 232,448; a
cross-warp row reduction's scratch holds one partial per warp and row (256 bytes per
register), not one per thread. bench/python_call/torch_on_gpu.py checks it on the H200
against float64 torch at SEQ 1000 and 8192."""

import math

import numpy as np

import tile.language as T


def mla_decode(heads=128, dim=512, pe_dim=64, block_N=64, block_H=64, num_stages=2,
               threads=256, name="mla_decode"):
    BATCH, SEQ = T.symbolic("BATCH"), T.symbolic("SEQ")
    dtype, accum_dtype = "float16", "float32"
    # softmax(q.k / sqrt(dim + pe_dim)) through exp2: log2(e) folded into the scale.
    scale = math.log2(math.e) / math.sqrt(dim + pe_dim)

    @T.prim_func(name=name)
    def main(Q: T.Tensor((BATCH, heads, dim), dtype), Q_pe: T.Tensor((BATCH, heads, pe_dim), dtype),
             KV: T.Tensor((BATCH, SEQ, dim), dtype), K_pe: T.Tensor((BATCH, SEQ, pe_dim), dtype),
             Output: T.Tensor((BATCH, heads, dim), dtype)):
        with T.Kernel(BATCH, heads // block_H, threads=threads) as (bx, by):
            Q_shared = T.alloc_shared((block_H, dim), dtype)
            S_shared = T.alloc_shared((block_H, block_N), dtype)
            Q_pe_shared = T.alloc_shared((block_H, pe_dim), dtype)
            KV_shared = T.alloc_shared((block_N, dim), dtype)
            K_pe_shared = T.alloc_shared((block_N, pe_dim), dtype)
            O_shared = T.alloc_shared((block_H, dim), dtype)
            acc_s = T.alloc_fragment((block_H, block_N), accum_dtype)
            acc_o = T.alloc_fragment((block_H, dim), accum_dtype)
            scores_max = T.alloc_fragment((block_H,), accum_dtype)
            scores_max_prev = T.alloc_fragment((block_H,), accum_dtype)
            scores_scale = T.alloc_fragment((block_H,), accum_dtype)
            scores_sum = T.alloc_fragment((block_H,), accum_dtype)
            logsum = T.alloc_fragment((block_H,), accum_dtype)

            T.copy(Q[bx, by * block_H, 0], Q_shared)
            T.copy(Q_pe[bx, by * block_H, 0], Q_pe_shared)
            T.clear(acc_o)
            T.clear(logsum)
            T.fill(scores_max, -T.infinity(accum_dtype))
            for k in T.Pipelined(T.ceildiv(SEQ, block_N), num_stages=num_stages):
                T.copy(KV[bx, k * block_N, 0], KV_shared)
                T.copy(K_pe[bx, k * block_N, 0], K_pe_shared)
                # Keys past SEQ read as zeros: their scores start at -inf so they weigh nothing.
                for i, j in T.Parallel(block_H, block_N):
                    acc_s[i, j] = T.if_then_else(k * block_N + j < SEQ, 0,
                                                 -T.infinity(accum_dtype))
                T.gemm(Q_shared, KV_shared, acc_s, transpose_B=True,
                       policy=T.GemmWarpPolicy.FullCol)
                T.gemm(Q_pe_shared, K_pe_shared, acc_s, transpose_B=True,
                       policy=T.GemmWarpPolicy.FullCol)
                T.copy(scores_max, scores_max_prev)
                T.reduce_max(acc_s, scores_max, dim=1, clear=False)
                for i in T.Parallel(block_H):
                    scores_scale[i] = T.exp2_ftz(scores_max_prev[i] * scale -
                                                 scores_max[i] * scale)
                for i, j in T.Parallel(block_H, block_N):
                    acc_s[i, j] = T.exp2_ftz(acc_s[i, j] * scale - scores_max[i] * scale)
                T.reduce_sum(acc_s, scores_sum, dim=1)
                T.copy(acc_s, S_shared)
                for i in T.Parallel(block_H):
                    logsum[i] = logsum[i] * scores_scale[i] + scores_sum[i]
                for i, j in T.Parallel(block_H, dim):
                    acc_o[i, j] = acc_o[i, j] * scores_scale[i]
                T.gemm(S_shared, KV_shared, acc_o, policy=T.GemmWarpPolicy.FullCol)
            for i, j in T.Parallel(block_H, dim):
                acc_o[i, j] = acc_o[i, j] / logsum[i]
            T.copy(acc_o, O_shared)
            T.copy(O_shared, Output[bx, by * block_H, 0])

    return main


def reference(q, q_pe, kv, k_pe):
    """MLA decode in float64: the latent KV is both key (with K_pe) and value."""
    q, q_pe, kv, k_pe = (x.astype(np.float64) for x in (q, q_pe, kv, k_pe))
    scores = (np.einsum("bhd,bsd->bhs", q, kv) + np.einsum("bhd,bsd->bhs", q_pe, k_pe))
    scores /= math.sqrt(q.shape[-1] + q_pe.shape[-1])
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return np.einsum("bhs,bsd->bhd", weights / weights.sum(axis=-1, keepdims=True), kv)


def main(batch=2, seq=100, heads=8, dim=64, pe_dim=16, block_N=32, block_H=8, seed=0):
    """Runs a narrow variant on the CPU at a SEQ that divides no tile, with the output poisoned,
    and returns the largest error against float64 numpy."""
    kernel = mla_decode(heads=heads, dim=dim, pe_dim=pe_dim, block_N=block_N, block_H=block_H,
                        threads=128)
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((batch, heads, dim)).astype(np.float16)
    q_pe = rng.standard_normal((batch, heads, pe_dim)).astype(np.float16)
    kv = rng.standard_normal((batch, seq, dim)).astype(np.float16)
    k_pe = rng.standard_normal((batch, seq, pe_dim)).astype(np.float16)
    out = np.full((batch, heads, dim), np.nan, dtype=np.float16)
    kernel(q, q_pe, kv, k_pe, out)
    expected = reference(q, q_pe, kv, k_pe)
    np.testing.assert_allclose(out.astype(np.float64), expected, rtol=2e-3, atol=2e-3)
    return float(np.max(np.abs(out - expected)))


if __name__ == "__main__":
    print(f"MLA decode 2x8x100 (dim 64 + 16) on the CPU: max error {main():.3g} against "
          "float64 numpy")
