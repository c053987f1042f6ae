"""Row top-k by repeated max, as TileLang's examples/topk/example_topk.py writes it in
@tilelang.jit's eager form: a block holds blk_m rows of logits in a fragment and, topk times,
takes each row's max, the largest column holding it (a max over a fragment of candidate
indices), writes both, and knocks that entry out with -10000. TileLang's tunes blk_m and threads
with @tilelang.autotune; here they are given, so a CI run compiles one kernel.
Run it: python3 python/examples/tilelang/topk.py"""

import numpy as np

import tile as tilelang
import tile.language as T

from _harness import Inputs, check, f64


@tilelang.jit
def tl_topk(logits, topk, blk_m, threads=128):
    M, N = T.const("M, N")
    dtype = T.float32

    logits: T.Tensor([M, N], dtype)
    topk_gates = T.empty([M, topk], dtype)
    topk_indices = T.empty([M, topk], T.int32)

    with T.Kernel(T.ceildiv(M, blk_m), threads=threads) as bx:
        logits_frag = T.alloc_fragment([blk_m, N], dtype=dtype)
        max_val = T.alloc_fragment([blk_m], dtype=dtype)
        expand_max_idx = T.alloc_fragment([blk_m, N], T.int32)
        max_idx = T.alloc_fragment([blk_m], T.int32)

        T.copy(logits[bx * blk_m, 0], logits_frag)

        for k in T.serial(topk):
            T.fill(expand_max_idx, -1)
            T.reduce_max(logits_frag, max_val, dim=1, clear=True)

            for i, j in T.Parallel(blk_m, N):
                expand_max_idx[i, j] = T.if_then_else(max_val[i] == logits_frag[i, j], j,
                                                      expand_max_idx[i, j])

            T.reduce_max(expand_max_idx, max_idx, dim=1, clear=True)

            for i, j in T.Parallel(blk_m, N):
                logits_frag[i, j] = T.if_then_else(max_val[i] == logits_frag[i, j], -10000.0,
                                                   logits_frag[i, j])

            for i in T.Parallel(blk_m):
                topk_gates[bx * blk_m + i, k] = max_val[i]
                topk_indices[bx * blk_m + i, k] = max_idx[i]

    return topk_gates, topk_indices


def ref_program(logits, top_k):
    indices = np.argsort(-logits, axis=1, kind="stable")[:, :top_k]
    return np.take_along_axis(logits, indices, axis=1), indices


# TileLang's main runs M=320, N=128, topk=6, blk_m=64. The ragged shape is one row (of a block of
# 64) whose width is no power of two.
SHAPES = {"default": dict(M=320, N=128, topk=6), "ragged": dict(M=1, N=77, topk=6)}


def run(M, N, topk, framework="numpy", blk_m=64):
    """Runs the kernel on uniform logits in [0, 1) (TileLang's torch.rand); the largest error
    of the gates against float64 (indices must match exactly)."""
    logits = Inputs(framework).uniform((M, N), "float32", low=0.0, high=1.0)
    gates, indices = tl_topk(logits, topk, blk_m=blk_m)
    want_gates, want_indices = ref_program(f64(logits), topk)
    check("topk_indices", indices, want_indices, rtol=0, atol=0)
    return check("topk_gates", gates, want_gates, rtol=0, atol=0)


if __name__ == "__main__":
    print("max error", run(**SHAPES["default"]))
