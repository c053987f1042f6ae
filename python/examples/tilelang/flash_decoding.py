"""Split-KV flash decoding for grouped-query attention, after TileLang's
examples/flash_decoding/example_gqa_decode.py: one query token per batch entry, `heads` query
heads sharing `groups` KV heads, a uint8 mask over the keys. The keys are cut into num_split
parts; the split kernel (out_idx=[4, 5]) runs an online softmax over one part for block_H heads
of one KV head and writes each head's partial output and its log-sum-exp (base 2); the combine
kernel (out_idx=[2]) weighs the parts by exp2(lse - logsumexp(lse)).

TileLang writes both kernels in one prim_func, the partials in T.alloc_global buffers between
its two T.Kernel blocks. tile.language has no T.alloc_global and takes one T.Kernel block per
prim_func, so here they are two @tilelang.jit kernels and the partials are the first's outputs.
TileLang's split reads seqlen_kv // num_split keys per part and masks `j < seqlen_kv //
num_split` within a tile, which holds when block_N divides the part; here a part is
ceildiv(seqlen_kv, num_split) keys and each key's position is checked against its part's end
and seqlen_kv, so a sequence that divides neither the parts nor the tiles works.
Q, K, V, Output are float16. Run it: python3 python/examples/tilelang/flash_decoding.py"""

import numpy as np

import tile as tilelang
import tile.language as T

from _harness import Inputs, check, f64


@tilelang.jit(out_idx=[4, 5],
              pass_configs={tilelang.PassConfigKey.TL_DISABLE_WARP_SPECIALIZED: True})
def flashattn_split(batch, heads, groups, seqlen_kv, dim, block_N, block_H, num_split, num_stages,
                    threads):
    scale = (1.0 / dim)**0.5 * 1.44269504  # log2(e)
    shape_q = [batch, heads, dim]
    shape_kv = [batch, seqlen_kv, groups, dim]
    part_shape = [batch, heads, num_split, dim]
    dtype = T.float16
    accum_dtype = T.float32
    kv_group_num = heads // groups
    valid_block_H = min(block_H, kv_group_num)
    split_len = tilelang.cdiv(seqlen_kv, num_split)

    @T.prim_func
    def flashattn_gqa_decode_split(Q: T.Tensor(shape_q, dtype), K: T.Tensor(shape_kv, dtype),
                                   V: T.Tensor(shape_kv, dtype),
                                   mask: T.Tensor([batch, seqlen_kv, groups], "uint8"),
                                   glse: T.Tensor([batch, heads, num_split], dtype),
                                   Output_partial: T.Tensor(part_shape, dtype)):
        with T.Kernel(batch, heads // valid_block_H, num_split, threads=threads) as (bx, by, bz):
            Q_shared = T.alloc_shared([block_H, dim], dtype)
            K_shared = T.alloc_shared([block_N, dim], dtype)
            V_shared = T.alloc_shared([block_N, dim], dtype)
            O_shared = T.alloc_shared([valid_block_H, dim], dtype)
            acc_s = T.alloc_fragment([block_H, block_N], accum_dtype)
            acc_s_cast = T.alloc_fragment([block_H, block_N], dtype)
            mask_local = T.alloc_fragment([block_N], "uint8")
            acc_o = T.alloc_fragment([block_H, dim], accum_dtype)
            scores_max = T.alloc_fragment([block_H], accum_dtype)
            scores_max_prev = T.alloc_fragment([block_H], accum_dtype)
            scores_scale = T.alloc_fragment([block_H], accum_dtype)
            scores_sum = T.alloc_fragment([block_H], accum_dtype)
            logsum = T.alloc_fragment([block_H], accum_dtype)

            bid = bx
            hid = by
            sid = bz
            cur_kv_head = hid // (kv_group_num // valid_block_H)
            split_start = split_len * sid
            split_end = T.min(split_len * (sid + 1), seqlen_kv)

            T.copy(Q[bid, hid * valid_block_H:hid * valid_block_H + block_H, :], Q_shared)
            T.fill(acc_o, 0)
            T.fill(logsum, 0)
            T.fill(scores_max, -T.infinity(accum_dtype))

            loop_range = T.ceildiv(split_len, block_N)
            for k in T.Pipelined(loop_range, num_stages=num_stages):
                kv_start = split_start + k * block_N
                T.copy(K[bid, kv_start:kv_start + block_N, cur_kv_head, :], K_shared)
                T.copy(mask[bid, kv_start:kv_start + block_N, cur_kv_head], mask_local)
                T.clear(acc_s)
                T.gemm(Q_shared, K_shared, acc_s, transpose_B=True,
                       policy=T.GemmWarpPolicy.FullRow)
                for i, j in T.Parallel(block_H, block_N):
                    acc_s[i, j] = T.if_then_else((mask_local[j] != 0) & (kv_start + j < split_end),
                                                 acc_s[i, j], -T.infinity(accum_dtype))
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
                for i in T.Parallel(block_H):
                    logsum[i] = logsum[i] * scores_scale[i] + scores_sum[i]
                T.copy(acc_s, acc_s_cast)
                for i, j in T.Parallel(block_H, dim):
                    acc_o[i, j] *= scores_scale[i]
                T.copy(V[bid, kv_start:kv_start + block_N, cur_kv_head, :], V_shared)
                T.gemm(acc_s_cast, V_shared, acc_o, policy=T.GemmWarpPolicy.FullRow)
            for i, j in T.Parallel(block_H, dim):
                acc_o[i, j] /= logsum[i]
            for i in T.Parallel(block_H):
                logsum[i] = T.log2(logsum[i]) + scores_max[i] * scale

            for i in T.Parallel(block_H):
                if i < valid_block_H:
                    glse[bid, hid * valid_block_H + i, sid] = logsum[i]
            T.copy(acc_o[:valid_block_H, :], O_shared)
            T.copy(O_shared, Output_partial[bid, hid * valid_block_H:(hid + 1) * valid_block_H,
                                            sid, :])

    return flashattn_gqa_decode_split


@tilelang.jit(out_idx=[2])
def flashattn_combine(batch, heads, num_split, dim):
    dtype = T.float16
    accum_dtype = T.float32

    @T.prim_func
    def flashattn_gqa_decode_combine(glse: T.Tensor([batch, heads, num_split], dtype),
                                     Output_partial: T.Tensor([batch, heads, num_split, dim],
                                                              dtype),
                                     Output: T.Tensor([batch, heads, dim], dtype)):
        with T.Kernel(heads, batch, threads=128) as (by, bz):
            po_local = T.alloc_fragment([dim], dtype)
            o_accum_local = T.alloc_fragment([dim], accum_dtype)
            lse_local = T.alloc_fragment([num_split, dim], dtype)
            lse_logsum_local = T.alloc_fragment([dim], accum_dtype)
            lse_max_local = T.alloc_fragment([dim], accum_dtype)
            scale_local = T.alloc_fragment([dim], accum_dtype)

            T.clear(lse_logsum_local)
            T.clear(o_accum_local)
            # Every one of the dim lanes holds the same lse, so the per-lane weights need no
            # broadcast.
            for k, j in T.Parallel(num_split, dim):
                lse_local[k, j] = glse[bz, by, k]
            T.reduce_max(lse_local, lse_max_local, dim=0, clear=True)
            for k in T.serial(num_split):
                for j in T.Parallel(dim):
                    lse_logsum_local[j] += T.exp2(lse_local[k, j] - lse_max_local[j])
            for j in T.Parallel(dim):
                lse_logsum_local[j] = T.log2(lse_logsum_local[j]) + lse_max_local[j]
            for k in T.serial(num_split):
                for i in T.Parallel(dim):
                    po_local[i] = Output_partial[bz, by, k, i]
                for j in T.Parallel(dim):
                    scale_local[j] = T.exp2(lse_local[k, j] - lse_logsum_local[j])
                for i in T.Parallel(dim):
                    o_accum_local[i] += po_local[i] * scale_local[i]
            for i in T.Parallel(dim):
                Output[bz, by, i] = o_accum_local[i]

    return flashattn_gqa_decode_combine


def ref_program(query, key, value, mask):
    # query [batch, heads, dim]; key, value [batch, seqlen_kv, groups, dim];
    # mask [batch, seqlen_kv, groups]
    dim = query.shape[-1]
    num_head_groups = query.shape[1] // key.shape[2]
    key = np.repeat(key, num_head_groups, axis=2)
    value = np.repeat(value, num_head_groups, axis=2)
    scores = np.einsum("bhd,bshd->bhs", query, key) / np.sqrt(dim)
    keep = np.repeat(mask, num_head_groups, axis=2).transpose(0, 2, 1) != 0
    scores = np.where(keep, scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return np.einsum("bhs,bshd->bhd", weights, value)


SHAPES = {"default": dict(batch=2, heads=8, groups=2, seqlen_kv=256, dim=64),
          "ragged": dict(batch=2, heads=8, groups=1, seqlen_kv=181, dim=64)}


def run(batch, heads, groups, seqlen_kv, dim, framework="numpy", block_N=32, block_H=16,
        num_split=4):
    """Runs the split and combine kernels on fresh inputs (a tenth of the keys masked, the
    first of each part kept); the largest error against float64."""
    inputs = Inputs(framework)
    q = inputs.randn((batch, heads, dim), "float16")
    k, v = (inputs.randn((batch, seqlen_kv, groups, dim), "float16") for _ in range(2))
    mask = inputs.integers((batch, seqlen_kv, groups), "uint8", 0, 10)  # 0: masked
    mask[:, ::tilelang.cdiv(seqlen_kv, num_split)] = 1  # no part is masked entirely
    split = flashattn_split(batch, heads, groups, seqlen_kv, dim, block_N, block_H, num_split,
                            num_stages=2, threads=128)
    glse, output_partial = split(q, k, v, mask)
    output = flashattn_combine(batch, heads, num_split, dim)(glse, output_partial)
    return check("Output", output, ref_program(f64(q), f64(k), f64(v), f64(mask)))


if __name__ == "__main__":
    print("max error", run(**SHAPES["default"]))
