"""FlashAttention backward, full and causal, as TileLang writes it in
examples/flash_attention/example_mha_bwd_bhsd.py: four @tilelang.jit factories (fast math).
The forward (out_idx=[3, 4]) also returns each row's log-sum-exp in base 2; the preprocess
(out_idx=[2]) computes Delta = rowsum(O * dO); the backward keeps one K and V tile per block,
streams Q and dO tiles past it, accumulates dK and dV in float32 fragments and adds each tile's
dQ into a float32 dQ with T.atomic_add, element by element as TileLang does; the postprocess
(out_idx=[1]) converts dQ to float16. Q, K, V, dO are float16 [batch, heads, seq, dim].

TileLang's forward and postprocess annotate dQ with make_dq_layout (a T.Layout that reorders
dQ so that the atomic adds follow the 8x8 gemm fragment). tile.language refuses a layout on a
kernel parameter (layouts are index maps on buffers a kernel declares), so that annotation is
left out here; it changes where dQ's elements live, not their values.
Run it: python3 python/examples/tilelang/flash_attention_bwd.py"""

import numpy as np

import tile as tilelang
import tile.language as T

from _harness import Inputs, check, f64


@tilelang.jit(out_idx=[3, 4], pass_configs={tilelang.PassConfigKey.TL_ENABLE_FAST_MATH: True})
def flashattn_fwd(batch, heads, seq_len, dim, is_causal, block_M, block_N):
    scale = (1.0 / dim)**0.5 * 1.44269504  # log2(e)
    shape = [batch, heads, seq_len, dim]
    dtype = T.float16
    accum_dtype = T.float32

    @T.prim_func
    def flash_fwd(Q: T.Tensor(shape, dtype), K: T.Tensor(shape, dtype),
                  V: T.Tensor(shape, dtype), Output: T.Tensor(shape, dtype),
                  lse: T.Tensor([batch, heads, seq_len], accum_dtype)):
        with T.Kernel(T.ceildiv(seq_len, block_M), heads, batch, threads=128) as (bx, by, bz):
            Q_shared = T.alloc_shared([block_M, dim], dtype)
            K_shared = T.alloc_shared([block_N, dim], dtype)
            V_shared = T.alloc_shared([block_N, dim], dtype)
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
            loop_range = (T.ceildiv((bx + 1) * block_M, block_N) if is_causal else
                          T.ceildiv(seq_len, block_N))
            for k in T.Pipelined(loop_range, num_stages=1):
                T.copy(K[bz, by, k * block_N:(k + 1) * block_N, :], K_shared)
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
                T.copy(V[bz, by, k * block_N:(k + 1) * block_N, :], V_shared)
                T.copy(scores_max, scores_max_prev)
                T.reduce_max(acc_s, scores_max, dim=1, clear=False)
                for i in T.Parallel(block_M):
                    scores_max[i] = T.max(scores_max[i], scores_max_prev[i])
                for i in T.Parallel(block_M):
                    scores_scale[i] = T.exp2(scores_max_prev[i] * scale - scores_max[i] * scale)
                for i, j in T.Parallel(block_M, dim):
                    acc_o[i, j] *= scores_scale[i]
                for i, j in T.Parallel(block_M, block_N):
                    acc_s[i, j] = T.exp2(acc_s[i, j] * scale - scores_max[i] * scale)
                T.copy(acc_s, acc_s_cast)
                T.gemm(acc_s_cast, V_shared, acc_o, policy=T.GemmWarpPolicy.FullRow)
                T.reduce_sum(acc_s, scores_sum, dim=1)
                for i in T.Parallel(block_M):
                    logsum[i] = logsum[i] * scores_scale[i] + scores_sum[i]
            for i, j in T.Parallel(block_M, dim):
                acc_o[i, j] /= logsum[i]
            T.copy(acc_o, Output[bz, by, bx * block_M:(bx + 1) * block_M, :])
            for i in T.Parallel(block_M):
                logsum[i] = T.log2(logsum[i]) + scores_max[i] * scale
            T.copy(logsum, lse[bz, by, bx * block_M:(bx + 1) * block_M])

    return flash_fwd


@tilelang.jit(out_idx=[2], pass_configs={tilelang.PassConfigKey.TL_ENABLE_FAST_MATH: True})
def flashattn_bwd_preprocess(batch, heads, seq_len, dim):
    dtype = T.float16
    accum_dtype = T.float32
    shape = [batch, heads, seq_len, dim]
    blk = 32

    @T.prim_func
    def flash_bwd_prep(O: T.Tensor(shape, dtype), dO: T.Tensor(shape, dtype),
                       Delta: T.Tensor([batch, heads, seq_len], accum_dtype)):
        with T.Kernel(heads, T.ceildiv(seq_len, blk), batch) as (bx, by, bz):
            o = T.alloc_fragment([blk, blk], dtype)
            do = T.alloc_fragment([blk, blk], dtype)
            acc = T.alloc_fragment([blk, blk], accum_dtype)
            delta = T.alloc_fragment([blk], accum_dtype)
            T.clear(acc)
            for k in range(T.ceildiv(dim, blk)):
                T.copy(O[bz, bx, by * blk:(by + 1) * blk, k * blk:(k + 1) * blk], o)
                T.copy(dO[bz, bx, by * blk:(by + 1) * blk, k * blk:(k + 1) * blk], do)
                for i, j in T.Parallel(blk, blk):
                    acc[i, j] += o[i, j] * do[i, j]
            T.reduce_sum(acc, delta, 1)
            T.copy(delta, Delta[bz, bx, by * blk:(by + 1) * blk])

    return flash_bwd_prep


@tilelang.jit(out_idx=[1], pass_configs={tilelang.PassConfigKey.TL_ENABLE_FAST_MATH: True})
def flashattn_bwd_postprocess(batch, heads, seq_len, dim):
    dtype = T.float16
    accum_dtype = T.float32
    shape = [batch, heads, seq_len, dim]
    blk = 64

    @T.prim_func
    def flash_bwd_post(dQ: T.Tensor(shape, accum_dtype), dQ_out: T.Tensor(shape, dtype)):
        with T.Kernel(T.ceildiv(seq_len, blk), heads, batch, threads=128) as (bx, by, bz):
            T.copy(dQ[bz, by, bx * blk:(bx + 1) * blk, :],
                   dQ_out[bz, by, bx * blk:(bx + 1) * blk, :])

    return flash_bwd_post


@tilelang.jit(pass_configs={tilelang.PassConfigKey.TL_ENABLE_FAST_MATH: True})
def flashattn_bwd(batch, heads, seq_len, dim, is_causal, block_M, block_N):
    sm_scale = (1.0 / dim)**0.5
    scale = (1.0 / dim)**0.5 * 1.44269504  # log2(e)
    shape = [batch, heads, seq_len, dim]
    dtype = T.float16
    accum_dtype = T.float32

    @T.prim_func
    def flash_bwd(Q: T.Tensor(shape, dtype), K: T.Tensor(shape, dtype),
                  V: T.Tensor(shape, dtype), dO: T.Tensor(shape, dtype),
                  lse: T.Tensor([batch, heads, seq_len], accum_dtype),
                  Delta: T.Tensor([batch, heads, seq_len], accum_dtype),
                  dQ: T.Tensor(shape, accum_dtype), dK: T.Tensor(shape, dtype),
                  dV: T.Tensor(shape, dtype)):
        with T.Kernel(heads, T.ceildiv(seq_len, block_M), batch, threads=128) as (bx, by, bz):
            K_shared = T.alloc_shared([block_M, dim], dtype)
            dsT_shared = T.alloc_shared([block_M, block_N], dtype)
            q = T.alloc_shared([block_N, dim], dtype)
            V_shared = T.alloc_shared([block_M, dim], dtype)
            qkT = T.alloc_fragment([block_M, block_N], accum_dtype)
            dsT = T.alloc_fragment([block_M, block_N], accum_dtype)
            qkT_cast = T.alloc_fragment([block_M, block_N], dtype)
            dsT_cast = T.alloc_fragment([block_M, block_N], dtype)
            lse_shared = T.alloc_shared([block_N], accum_dtype)
            delta = T.alloc_shared([block_N], accum_dtype)
            do = T.alloc_shared([block_N, dim], dtype)
            dv = T.alloc_fragment([block_M, dim], accum_dtype)
            dk = T.alloc_fragment([block_M, dim], accum_dtype)
            dq = T.alloc_fragment([block_N, dim], accum_dtype)
            dv_shared = T.alloc_shared([block_M, dim], dtype)
            dk_shared = T.alloc_shared([block_M, dim], dtype)

            T.copy(K[bz, bx, by * block_M:(by + 1) * block_M, :], K_shared)
            T.copy(V[bz, bx, by * block_M:(by + 1) * block_M, :], V_shared)
            T.clear(dv)
            T.clear(dk)
            loop_st = T.floordiv(by * block_M, block_N) if is_causal else 0
            loop_ed = T.ceildiv(seq_len, block_N)
            for k in T.Pipelined(loop_st, loop_ed, num_stages=2):
                T.copy(Q[bz, bx, k * block_N:(k + 1) * block_N, :], q)
                T.clear(qkT)
                T.gemm(K_shared, q, qkT, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)
                T.copy(lse[bz, bx, k * block_N:(k + 1) * block_N], lse_shared)
                for i, j in T.Parallel(block_M, block_N):
                    qkT[i, j] = T.exp2(qkT[i, j] * scale - lse_shared[j])
                if is_causal:
                    for i, j in T.Parallel(block_M, block_N):
                        qkT[i, j] = T.if_then_else(by * block_M + i <= k * block_N + j, qkT[i, j],
                                                   0)
                # Queries past seq_len read as zeros (Q, dO, lse, Delta), so whatever qkT holds
                # there meets a zero row of dO or Q and adds nothing.
                T.copy(dO[bz, bx, k * block_N:(k + 1) * block_N, :], do)
                T.clear(dsT)
                T.gemm(V_shared, do, dsT, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)
                T.copy(qkT, qkT_cast)
                T.gemm(qkT_cast, do, dv, policy=T.GemmWarpPolicy.FullRow)

                T.copy(Delta[bz, bx, k * block_N:(k + 1) * block_N], delta)

                for i, j in T.Parallel(block_M, block_N):
                    dsT_cast[i, j] = qkT[i, j] * (dsT[i, j] - delta[j]) * sm_scale
                T.gemm(dsT_cast, q, dk, policy=T.GemmWarpPolicy.FullRow)

                T.copy(dsT_cast, dsT_shared)
                T.clear(dq)
                T.gemm(dsT_shared, K_shared, dq, transpose_A=True)
                for i, j in T.Parallel(block_N, dim):
                    T.atomic_add(dQ[bz, bx, k * block_N + i, j], dq[i, j])
            T.copy(dv, dv_shared)
            T.copy(dk, dk_shared)
            T.copy(dv_shared, dV[bz, bx, by * block_M:(by + 1) * block_M, :])
            T.copy(dk_shared, dK[bz, bx, by * block_M:(by + 1) * block_M, :])

    return flash_bwd


def ref_program(Q, K, V, dO, is_causal):
    """Attention's output and its gradients dQ, dK, dV for the output gradient dO."""
    sm_scale = 1.0 / np.sqrt(Q.shape[-1])
    scores = np.einsum("bhqd,bhkd->bhqk", Q, K) * sm_scale
    if is_causal:
        seq_len = Q.shape[2]
        scores = np.where(np.tril(np.ones((seq_len, seq_len), dtype=bool)), scores, -np.inf)
    P = np.exp(scores - scores.max(axis=-1, keepdims=True))
    P /= P.sum(axis=-1, keepdims=True)
    O = np.einsum("bhqk,bhkd->bhqd", P, V)
    dV = np.einsum("bhqk,bhqd->bhkd", P, dO)
    dP = np.einsum("bhqd,bhkd->bhqk", dO, V)
    dS = P * (dP - (dO * O).sum(axis=-1, keepdims=True))
    dQ = np.einsum("bhqk,bhkd->bhqd", dS, K) * sm_scale
    dK = np.einsum("bhqk,bhqd->bhkd", dS, Q) * sm_scale
    return O, dQ, dK, dV


SHAPES = {"default": dict(batch=1, heads=2, seq_len=128, dim=64),
          "ragged": dict(batch=2, heads=1, seq_len=100, dim=64)}


def run(batch, heads, seq_len, dim, framework="numpy", block_M=64, block_N=64):
    """Runs forward, preprocess, backward and postprocess (full and causal) on fresh inputs;
    the largest error of O, dQ, dK, dV against float64."""
    inputs = Inputs(framework)
    shape = (batch, heads, seq_len, dim)
    q, k, v, do = (inputs.randn(shape, "float16") for _ in range(4))
    error = 0.0
    for is_causal in (False, True):
        o, lse = flashattn_fwd(batch, heads, seq_len, dim, is_causal, block_M, block_N)(q, k, v)
        delta = flashattn_bwd_preprocess(batch, heads, seq_len, dim)(o, do)
        dq = inputs.zeros(shape, "float32")  # accumulated into by the atomic adds
        dk, dv = inputs.poisoned(shape, "float16"), inputs.poisoned(shape, "float16")
        kernel = flashattn_bwd(batch, heads, seq_len, dim, is_causal, block_M, block_N)
        kernel(q, k, v, do, lse, delta, dq, dk, dv)
        dq = flashattn_bwd_postprocess(batch, heads, seq_len, dim)(dq)
        references = ref_program(f64(q), f64(k), f64(v), f64(do), is_causal)
        for name, got, want in zip(("O", "dQ", "dK", "dV"), (o, dq, dk, dv), references):
            error = max(error, check(f"{name} (is_causal={is_causal})", got, want,
                                     rtol=1e-2, atol=2e-2))
    return error


if __name__ == "__main__":
    print("max error", run(**SHAPES["default"]))
