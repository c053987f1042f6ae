"""DeepSeek MLA decode as TileLang writes it in examples/deepseek_mla/example_mla_decode.py: one
query token per batch entry, `heads` query heads sharing one latent KV head of width dim (the
keys' first part and the values) plus a rotary part of width pe_dim. A block takes block_H
heads of one batch entry; KV and K_pe tiles stream through shared memory; scores accumulate in
float32 with an online softmax in base 2 and go back to float16 through shared memory for the
second gemm. `flashattn` is TileLang's main_no_split (out_idx=[4], fast math); with num_split
> 1 the keys are cut into parts: `flashattn_split` writes each part's partial output and
log-sum-exp, `flashattn_combine` (T.alloc_var scalars, as TileLang's) weighs them.

TileLang's main_split holds both kernels in one prim_func with T.alloc_global partials between
two T.Kernel blocks; tile.language has neither (no T.alloc_global, one T.Kernel block per
prim_func), so here they are two @tilelang.jit kernels. TileLang's kernels read whole tiles
(seqlen_kv a multiple of block_N, and of num_split * block_N when split); here the scores of
keys past seqlen_kv, or past their part, start at -inf, so any seqlen_kv works.
Q, Q_pe, KV, K_pe are float16. Run it: python3 python/examples/tilelang/mla_decode_tl.py"""

import numpy as np

import tile as tilelang
import tile.language as T

from _harness import Inputs, check, f64


@tilelang.jit(out_idx=[4], pass_configs={tilelang.PassConfigKey.TL_ENABLE_FAST_MATH: True})
def flashattn(batch, heads, kv_head_num, seqlen_kv, dim, pe_dim, block_N, block_H,
              softmax_scale):
    scale = float(softmax_scale * 1.44269504)  # log2(e)
    dtype = T.float16
    accum_dtype = T.float32
    kv_group_num = heads // kv_head_num
    VALID_BLOCK_H = min(block_H, kv_group_num)
    assert kv_head_num == 1, "kv_head_num must be 1"

    @T.prim_func
    def main_no_split(Q: T.Tensor([batch, heads, dim], dtype),
                      Q_pe: T.Tensor([batch, heads, pe_dim], dtype),
                      KV: T.Tensor([batch, seqlen_kv, kv_head_num, dim], dtype),
                      K_pe: T.Tensor([batch, seqlen_kv, kv_head_num, pe_dim], dtype),
                      Output: T.Tensor([batch, heads, dim], dtype)):
        with T.Kernel(heads // min(block_H, kv_group_num), batch, threads=256) as (hid, bid):
            Q_shared = T.alloc_shared([block_H, dim], dtype)
            S_shared = T.alloc_shared([block_H, block_N], dtype)
            Q_pe_shared = T.alloc_shared([block_H, pe_dim], dtype)
            KV_shared = T.alloc_shared([block_N, dim], dtype)
            K_pe_shared = T.alloc_shared([block_N, pe_dim], dtype)
            O_shared = T.alloc_shared([block_H, dim], dtype)
            acc_s = T.alloc_fragment([block_H, block_N], accum_dtype)
            acc_o = T.alloc_fragment([block_H, dim], accum_dtype)
            scores_max = T.alloc_fragment([block_H], accum_dtype)
            scores_max_prev = T.alloc_fragment([block_H], accum_dtype)
            scores_scale = T.alloc_fragment([block_H], accum_dtype)
            scores_sum = T.alloc_fragment([block_H], accum_dtype)
            logsum = T.alloc_fragment([block_H], accum_dtype)

            cur_kv_head = hid // (kv_group_num // block_H)

            T.copy(Q[bid, hid * VALID_BLOCK_H:(hid + 1) * VALID_BLOCK_H, :], Q_shared)
            T.copy(Q_pe[bid, hid * VALID_BLOCK_H:(hid + 1) * VALID_BLOCK_H, :], Q_pe_shared)
            T.fill(acc_o, 0)
            T.fill(logsum, 0)
            T.fill(scores_max, -T.infinity(accum_dtype))

            loop_range = T.ceildiv(seqlen_kv, block_N)
            for k in T.Pipelined(loop_range, num_stages=2):
                T.copy(KV[bid, k * block_N:(k + 1) * block_N, cur_kv_head, :], KV_shared)
                T.copy(K_pe[bid, k * block_N:(k + 1) * block_N, cur_kv_head, :], K_pe_shared)
                T.gemm(Q_shared, KV_shared, acc_s, transpose_B=True,
                       policy=T.GemmWarpPolicy.FullCol, clear_accum=True)
                T.gemm(Q_pe_shared, K_pe_shared, acc_s, transpose_B=True,
                       policy=T.GemmWarpPolicy.FullCol)
                for i, j in T.Parallel(block_H, block_N):
                    acc_s[i, j] = T.if_then_else(k * block_N + j < seqlen_kv, acc_s[i, j],
                                                 -T.infinity(accum_dtype))
                T.copy(scores_max, scores_max_prev)
                T.fill(scores_max, -T.infinity(accum_dtype))
                T.reduce_max(acc_s, scores_max, dim=1, clear=False)
                for i in T.Parallel(block_H):
                    scores_max[i] = T.max(scores_max[i], scores_max_prev[i])
                for i in T.Parallel(block_H):
                    scores_scale[i] = T.exp2(scores_max_prev[i] * scale - scores_max[i] * scale)
                for i, j in T.Parallel(block_H, block_N):
                    acc_s[i, j] = T.exp2(acc_s[i, j] * scale - scores_max[i] * scale)
                T.reduce_sum(acc_s, scores_sum, dim=1)
                T.copy(acc_s, S_shared)
                for i in T.Parallel(block_H):
                    logsum[i] = logsum[i] * scores_scale[i] + scores_sum[i]
                for i, j in T.Parallel(block_H, dim):
                    acc_o[i, j] *= scores_scale[i]
                T.gemm(S_shared, KV_shared, acc_o, policy=T.GemmWarpPolicy.FullCol)
            for i, j in T.Parallel(block_H, dim):
                acc_o[i, j] /= logsum[i]
            T.copy(acc_o, O_shared)
            T.copy(O_shared, Output[bid, hid * VALID_BLOCK_H:(hid + 1) * VALID_BLOCK_H, :])

    return main_no_split


@tilelang.jit(out_idx=[4, 5], pass_configs={tilelang.PassConfigKey.TL_ENABLE_FAST_MATH: True})
def flashattn_split(batch, heads, kv_head_num, seqlen_kv, dim, pe_dim, block_N, block_H,
                    num_split, softmax_scale):
    scale = float(softmax_scale * 1.44269504)  # log2(e)
    dtype = T.float16
    accum_dtype = T.float32
    kv_group_num = heads // kv_head_num
    VALID_BLOCK_H = min(block_H, kv_group_num)
    split_len = tilelang.cdiv(seqlen_kv, num_split)
    assert kv_head_num == 1, "kv_head_num must be 1"

    @T.prim_func
    def main_split(Q: T.Tensor([batch, heads, dim], dtype),
                   Q_pe: T.Tensor([batch, heads, pe_dim], dtype),
                   KV: T.Tensor([batch, seqlen_kv, kv_head_num, dim], dtype),
                   K_pe: T.Tensor([batch, seqlen_kv, kv_head_num, pe_dim], dtype),
                   glse: T.Tensor([batch, heads, num_split], dtype),
                   Output_partial: T.Tensor([batch, heads, num_split, dim], dtype)):
        with T.Kernel(batch, heads // min(block_H, kv_group_num), num_split,
                      threads=256) as (bid, hid, bz):
            Q_shared = T.alloc_shared([block_H, dim], dtype)
            S_shared = T.alloc_shared([block_H, block_N], dtype)
            Q_pe_shared = T.alloc_shared([block_H, pe_dim], dtype)
            KV_shared = T.alloc_shared([block_N, dim], dtype)
            K_pe_shared = T.alloc_shared([block_N, pe_dim], dtype)
            O_shared = T.alloc_shared([block_H, dim], dtype)
            acc_s = T.alloc_fragment([block_H, block_N], accum_dtype)
            acc_s_cast = T.alloc_fragment([block_H, block_N], dtype)
            acc_o = T.alloc_fragment([block_H, dim], accum_dtype)
            scores_max = T.alloc_fragment([block_H], accum_dtype)
            scores_max_prev = T.alloc_fragment([block_H], accum_dtype)
            scores_scale = T.alloc_fragment([block_H], accum_dtype)
            scores_sum = T.alloc_fragment([block_H], accum_dtype)
            logsum = T.alloc_fragment([block_H], accum_dtype)

            cur_kv_head = hid // (kv_group_num // block_H)
            split_end = T.min(split_len * (bz + 1), seqlen_kv)
            T.use_swizzle(10)

            T.copy(Q[bid, hid * VALID_BLOCK_H:(hid + 1) * VALID_BLOCK_H, :], Q_shared)
            T.copy(Q_pe[bid, hid * VALID_BLOCK_H:(hid + 1) * VALID_BLOCK_H, :], Q_pe_shared)
            T.fill(acc_o, 0)
            T.fill(logsum, 0)
            T.fill(scores_max, -T.infinity(accum_dtype))

            loop_range = T.ceildiv(split_len, block_N)
            for k in T.Pipelined(loop_range, num_stages=2):
                kv_start = split_len * bz + k * block_N
                kv_end = split_len * bz + (k + 1) * block_N
                T.copy(KV[bid, kv_start:kv_end, cur_kv_head, :], KV_shared)
                T.copy(K_pe[bid, kv_start:kv_end, cur_kv_head, :], K_pe_shared)
                for i, j in T.Parallel(block_H, block_N):
                    acc_s[i, j] = T.if_then_else(kv_start + j < split_end, 0,
                                                 -T.infinity(accum_dtype))
                T.gemm(Q_shared, KV_shared, acc_s, transpose_B=True,
                       policy=T.GemmWarpPolicy.FullCol)
                T.gemm(Q_pe_shared, K_pe_shared, acc_s, transpose_B=True,
                       policy=T.GemmWarpPolicy.FullCol)
                T.copy(scores_max, scores_max_prev)
                T.fill(scores_max, -T.infinity(accum_dtype))
                T.reduce_max(acc_s, scores_max, dim=1, clear=False)
                for i in T.Parallel(block_H):
                    scores_max[i] = T.max(scores_max[i], scores_max_prev[i])
                for i in T.Parallel(block_H):
                    scores_scale[i] = T.exp2(scores_max_prev[i] * scale - scores_max[i] * scale)
                for i, j in T.Parallel(block_H, block_N):
                    acc_s[i, j] = T.exp2(acc_s[i, j] * scale - scores_max[i] * scale)
                T.reduce_sum(acc_s, scores_sum, dim=1)
                T.copy(acc_s, S_shared)
                T.copy(S_shared, acc_s_cast)
                for i in T.Parallel(block_H):
                    logsum[i] = logsum[i] * scores_scale[i] + scores_sum[i]
                for i, j in T.Parallel(block_H, dim):
                    acc_o[i, j] *= scores_scale[i]
                T.gemm(acc_s_cast, KV_shared, acc_o, policy=T.GemmWarpPolicy.FullCol)
            for i, j in T.Parallel(block_H, dim):
                acc_o[i, j] /= logsum[i]
            for i in T.Parallel(block_H):
                logsum[i] = T.log2(logsum[i]) + scores_max[i] * scale
            T.copy(logsum, glse[bid, hid * VALID_BLOCK_H:(hid + 1) * VALID_BLOCK_H, bz])
            T.copy(acc_o, O_shared)
            T.copy(O_shared, Output_partial[bid, hid * VALID_BLOCK_H:(hid + 1) * VALID_BLOCK_H,
                                            bz, :])

    return main_split


@tilelang.jit(out_idx=[2], pass_configs={tilelang.PassConfigKey.TL_ENABLE_FAST_MATH: True})
def flashattn_combine(batch, heads, dim, num_split):
    dtype = T.float16
    accum_dtype = T.float32

    @T.prim_func
    def main_combine(glse: T.Tensor([batch, heads, num_split], dtype),
                     Output_partial: T.Tensor([batch, heads, num_split, dim], dtype),
                     Output: T.Tensor([batch, heads, dim], dtype)):
        with T.Kernel(heads, batch, threads=128) as (hid, bz):
            po_local = T.alloc_fragment([dim], dtype)
            o_accum_local = T.alloc_fragment([dim], accum_dtype)
            lse_local_split = T.alloc_var(accum_dtype)
            lse_logsum_local = T.alloc_var(accum_dtype)
            lse_max_local = T.alloc_var(accum_dtype)
            scale_local = T.alloc_var(accum_dtype)

            # TileLang clears the variable with T.clear, which tile.language takes for buffers
            # only; an assignment is a store into it.
            lse_logsum_local = 0
            T.clear(o_accum_local)
            lse_max_local = -T.infinity(accum_dtype)
            for k in T.serial(num_split):
                lse_max_local = T.max(lse_max_local, glse[bz, hid, k])
            for k in T.Pipelined(num_split, num_stages=1):
                lse_local_split = glse[bz, hid, k]
                lse_logsum_local += T.exp2(lse_local_split - lse_max_local)
            lse_logsum_local = T.log2(lse_logsum_local) + lse_max_local
            for k in T.serial(num_split):
                for i in T.Parallel(dim):
                    po_local[i] = Output_partial[bz, hid, k, i]
                lse_local_split = glse[bz, hid, k]
                scale_local = T.exp2(lse_local_split - lse_logsum_local)
                for i in T.Parallel(dim):
                    o_accum_local[i] += po_local[i] * scale_local
            for i in T.Parallel(dim):
                Output[bz, hid, i] = o_accum_local[i]

    return main_combine


def ref_program(q, q_pe, kv, k_pe):
    # q [batch, heads, dim], q_pe [batch, heads, pe_dim], kv [batch, seqlen_kv, 1, dim],
    # k_pe [batch, seqlen_kv, 1, pe_dim]
    scale = (q.shape[-1] + q_pe.shape[-1])**0.5
    query = np.concatenate([q, q_pe], axis=-1)
    key = np.concatenate([kv, k_pe], axis=-1)[:, :, 0]
    scores = np.einsum("bhd,bsd->bhs", query, key) / scale
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return np.einsum("bhs,bsd->bhd", weights, kv[:, :, 0])


SHAPES = {"default": dict(batch=2, heads=16, seqlen_kv=128, dim=64, pe_dim=16),
          "ragged": dict(batch=2, heads=32, seqlen_kv=157, dim=64, pe_dim=16)}


def run(batch, heads, seqlen_kv, dim, pe_dim, framework="numpy", block_N=32, block_H=16,
        num_split=2):
    """Runs the kernel without split and with num_split parts (split + combine) on fresh
    inputs; the largest error against float64."""
    inputs = Inputs(framework)
    q = inputs.randn((batch, heads, dim), "float16")
    q_pe = inputs.randn((batch, heads, pe_dim), "float16")
    kv = inputs.randn((batch, seqlen_kv, 1, dim), "float16")
    k_pe = inputs.randn((batch, seqlen_kv, 1, pe_dim), "float16")
    softmax_scale = (dim + pe_dim)**-0.5
    reference = ref_program(f64(q), f64(q_pe), f64(kv), f64(k_pe))

    kernel = flashattn(batch, heads, 1, seqlen_kv, dim, pe_dim, block_N, block_H, softmax_scale)
    error = check("Output (no split)", kernel(q, q_pe, kv, k_pe), reference)

    split = flashattn_split(batch, heads, 1, seqlen_kv, dim, pe_dim, block_N, block_H, num_split,
                            softmax_scale)
    glse, output_partial = split(q, q_pe, kv, k_pe)
    output = flashattn_combine(batch, heads, dim, num_split)(glse, output_partial)
    return max(error, check(f"Output ({num_split} splits)", output, reference))


if __name__ == "__main__":
    print("max error", run(**SHAPES["default"]))
