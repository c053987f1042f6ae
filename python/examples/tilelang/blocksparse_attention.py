"""Block-sparse FlashAttention forward as TileLang writes it in
examples/blocksparse_attention/example_tilelang_block_sparse_attn.py: a @tilelang.jit factory
(out_idx=[4], fast math) whose kernel reads one row of a bool block mask [batch, heads,
seq_len / block, seq_len / block] into a fragment (uint8 where the caller's arrays cannot be
bool) and visits a key tile only where the mask says so, with a Python
`if block_mask[k] != 0:` on the kernel value (a branch of the kernel).
The online softmax in base 2 is FlashAttention's; `if is_causal:` is decided at trace time.

TileLang's non-causal branch clears the scores (T.clear) and so counts keys past seq_len, and
its online softmax takes each tile's own maximum; here the scores of keys past seq_len start
at -inf and the running maximum is kept, as TileLang's FlashAttention examples do, so that a
seq_len that divides no tile works. Q, K, V, Output are float16 [batch, heads, seq, dim].
Run it: python3 python/examples/tilelang/blocksparse_attention.py"""

import numpy as np

import tile as tilelang
import tile.language as T

from _harness import Inputs, check, f64


@tilelang.jit(out_idx=[4], pass_configs={tilelang.PassConfigKey.TL_ENABLE_FAST_MATH: True})
def blocksparse_flashattn(batch, heads, seq_len, dim, downsample_len, is_causal,
                          block_mask_dtype=T.bool):
    block_M = 64
    block_N = 64
    num_stages = 1
    threads = 128
    scale = (1.0 / dim)**0.5 * 1.44269504  # log2(e)
    shape = [batch, heads, seq_len, dim]
    block_mask_shape = [batch, heads, downsample_len, downsample_len]

    dtype = T.float16
    accum_dtype = T.float32

    def kernel_func(block_M, block_N, num_stages, threads):

        @T.prim_func
        def blocksparse_flashattn(Q: T.Tensor(shape, dtype), K: T.Tensor(shape, dtype),
                                  V: T.Tensor(shape, dtype),
                                  BlockSparseMask: T.Tensor(block_mask_shape, block_mask_dtype),
                                  Output: T.Tensor(shape, dtype)):
            with T.Kernel(T.ceildiv(seq_len, block_M), heads, batch,
                          threads=threads) as (bx, by, bz):
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
                block_mask = T.alloc_fragment([downsample_len], block_mask_dtype)

                T.copy(Q[bz, by, bx * block_M:(bx + 1) * block_M, :], Q_shared)
                T.fill(acc_o, 0)
                T.fill(logsum, 0)
                T.fill(scores_max, -T.infinity(accum_dtype))

                T.copy(BlockSparseMask[bz, by, bx, :], block_mask)

                loop_range = (T.min(T.ceildiv(seq_len, block_N),
                                    T.ceildiv((bx + 1) * block_M, block_N))
                              if is_causal else T.ceildiv(seq_len, block_N))

                for k in T.Pipelined(loop_range, num_stages=num_stages):
                    if block_mask[k] != 0:
                        T.copy(K[bz, by, k * block_N:(k + 1) * block_N, :], K_shared)
                        if is_causal:
                            for i, j in T.Parallel(block_M, block_N):
                                acc_s[i, j] = T.if_then_else(bx * block_M + i >= k * block_N + j,
                                                             0, -T.infinity(accum_dtype))
                        else:
                            for i, j in T.Parallel(block_M, block_N):
                                acc_s[i, j] = T.if_then_else(k * block_N + j < seq_len, 0,
                                                             -T.infinity(accum_dtype))
                        T.gemm(Q_shared, K_shared, acc_s, transpose_B=True,
                               policy=T.GemmWarpPolicy.FullRow)

                        T.copy(scores_max, scores_max_prev)
                        T.fill(scores_max, -T.infinity(accum_dtype))
                        T.reduce_max(acc_s, scores_max, dim=1, clear=False)
                        for i in T.Parallel(block_M):
                            scores_max[i] = T.max(scores_max[i], scores_max_prev[i])
                        for i in T.Parallel(block_M):
                            scores_scale[i] = T.exp2(scores_max_prev[i] * scale -
                                                     scores_max[i] * scale)
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

        return blocksparse_flashattn

    return kernel_func(block_M, block_N, num_stages, threads)


def ref_program(q, k, v, block_mask, is_causal, block=64):
    """Attention where query block i sees key block j only if block_mask[..., i, j]."""
    seq_len = q.shape[2]
    full_mask = np.kron(block_mask, np.ones((block, block)))[..., :seq_len, :seq_len] != 0
    if is_causal:
        full_mask &= np.tril(np.ones((seq_len, seq_len), dtype=bool))
    scores = np.einsum("bhsd,bhtd->bhst", q, k) / np.sqrt(q.shape[-1])
    scores = np.where(full_mask, scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return np.einsum("bhst,bhtd->bhsd", weights, v)


SHAPES = {"default": dict(batch=1, heads=2, seq_len=256, dim=64),
          "ragged": dict(batch=2, heads=1, seq_len=150, dim=64)}


def run(batch, heads, seq_len, dim, framework="numpy", block=64):
    """Runs the causal and the full kernel on fresh inputs and a random block mask (key block
    0 always kept, as TileLang's test keeps it, so that every row sees a key); the largest
    error against float64."""
    inputs = Inputs(framework)
    shape = (batch, heads, seq_len, dim)
    q, k, v = (inputs.randn(shape, "float16") for _ in range(3))
    downsample_len = tilelang.cdiv(seq_len, block)
    # numpy 1.24 (Debian's) cannot share a bool array through DLPack, so on numpy the mask is
    # uint8; torch's is TileLang's bool.
    mask_dtype = "bool" if framework == "torch" else "uint8"
    block_mask = inputs.integers((batch, heads, downsample_len, downsample_len), mask_dtype, 0, 2)
    block_mask[:, :, :, 0] = 1
    error = 0.0
    for is_causal in (True, False):
        kernel = blocksparse_flashattn(batch, heads, seq_len, dim, downsample_len, is_causal,
                                       block_mask_dtype=mask_dtype)
        output = kernel(q, k, v, block_mask)
        reference = ref_program(f64(q), f64(k), f64(v), f64(block_mask), is_causal, block)
        error = max(error, check(f"Output (is_causal={is_causal})", output, reference))
    return error


if __name__ == "__main__":
    print("max error", run(**SHAPES["default"]))
