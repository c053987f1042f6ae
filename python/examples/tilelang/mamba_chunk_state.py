"""Mamba-2's chunk state (mamba_ssm's _chunk_state_fwd) as TileLang writes it in
examples/linear_attention/example_mamba_chunk_state.py, in @tilelang.jit's eager form: the
function declares its inputs by annotation, its sizes with T.const (taken from the call's
tensors) and its output with T.empty, and a call runs it. For each chunk of chunk_size
positions, head and batch entry it computes
    states[b, c, h, p, n] = sum_l x[l, h, p] * exp(dA_cumsum[c, last] - dA_cumsum[c, l]) * dt[c, l]
                                   * B[l, group(h), n],
a gemm whose A operand (x scaled per position, transposed) is built in a register fragment.
dt and dA_cumsum are [batch, nheads, nchunks, chunk_size]; all tensors are float16.

TileLang swizzles x_shared with tilelang.layout.make_swizzled_layout; tile has no
tilelang.layout module, and tile.language's T.make_swizzled_layout is the same layout.
Run it: python3 python/examples/tilelang/mamba_chunk_state.py"""

import numpy as np

import tile as tilelang
import tile.language as T

from _harness import Inputs, check, f64


@tilelang.jit
def chunk_state_fwd(B, x, dt, dA_cumsum, block_M=64, block_N=64, block_K=64, num_stages=2,
                    threads=128):
    batch, seqlen, chunk_size, ngroups, nheads, headdim, dstate = T.const(
        "batch, seqlen, chunk_size, ngroups, nheads, headdim, dstate")
    dtype = T.float16
    accum_dtype = T.float32
    nchunks = T.ceildiv(seqlen, chunk_size)
    p = 1.44269504

    B: T.Tensor((batch, seqlen, ngroups, dstate), dtype)
    x: T.Tensor((batch, seqlen, nheads, headdim), dtype)
    dt: T.Tensor((batch, nheads, nchunks, chunk_size), dtype)
    dA_cumsum: T.Tensor((batch, nheads, nchunks, chunk_size), dtype)
    Output = T.empty((batch, nchunks, nheads, headdim, dstate), dtype)

    with T.Kernel(nheads, T.ceildiv(headdim, block_M) * T.ceildiv(dstate, block_N),
                  batch * nchunks, threads=threads) as (bz, bx, by):
        x_shared = T.alloc_shared((block_K, block_M), dtype)
        x_local = T.alloc_fragment((block_K, block_M), dtype)
        xt_local = T.alloc_fragment((block_M, block_K), dtype)
        B_shared = T.alloc_shared((block_K, block_N), dtype)
        dt_shared = T.alloc_shared((block_K), dtype)
        dA_cumsum_shared = T.alloc_shared((block_K), dtype)
        acc_o = T.alloc_fragment((block_M, block_N), accum_dtype)
        acc_o_shared = T.alloc_shared((block_M, block_N), dtype)
        scale = T.alloc_fragment((block_K), accum_dtype)
        dA_cs_last = T.alloc_fragment((1), accum_dtype)
        dA_cumsum_local = T.alloc_fragment((block_K), accum_dtype)
        dt_local = T.alloc_fragment((block_K), accum_dtype)

        loop_range = T.ceildiv(chunk_size, block_K)

        batch_idx = by % batch
        chunk_idx = by // batch
        m_idx = bx // T.ceildiv(dstate, block_N)
        n_idx = bx % T.ceildiv(dstate, block_N)

        T.annotate_layout({x_shared: T.make_swizzled_layout(x_shared)})

        dA_cs_last[0] = dA_cumsum[batch_idx, bz, chunk_idx, chunk_size - 1]
        T.clear(acc_o)
        for k in T.Pipelined(loop_range, num_stages=num_stages):
            T.copy(x[batch_idx, chunk_idx * chunk_size + k * block_K:chunk_idx * chunk_size +
                     (k + 1) * block_K, bz, m_idx * block_M:(m_idx + 1) * block_M], x_shared)
            T.copy(dA_cumsum[batch_idx, bz, chunk_idx, k * block_K:(k + 1) * block_K],
                   dA_cumsum_shared)
            T.copy(dt[batch_idx, bz, chunk_idx, k * block_K:(k + 1) * block_K], dt_shared)
            T.copy(dA_cumsum_shared, dA_cumsum_local)
            T.copy(dt_shared, dt_local)
            for i in T.Parallel(block_K):
                scale[i] = T.exp2(dA_cs_last[0] * p - dA_cumsum_local[i] * p) * dt_local[i]
            T.copy(x_shared, x_local)
            for i, j in T.Parallel(block_M, block_K):
                xt_local[i, j] = x_local[j, i] * scale[j]
            T.copy(B[batch_idx, chunk_idx * chunk_size + k * block_K:chunk_idx * chunk_size +
                     (k + 1) * block_K, bz // (nheads // ngroups),
                     n_idx * block_N:(n_idx + 1) * block_N], B_shared)
            T.gemm(xt_local, B_shared, acc_o)
        T.copy(acc_o, acc_o_shared)
        T.copy(acc_o_shared, Output[batch_idx, chunk_idx, bz, m_idx * block_M:(m_idx + 1) * block_M,
                                    n_idx * block_N:(n_idx + 1) * block_N])

    return Output


def ref_program(B, x, dt, dA_cumsum):
    """B (batch, seqlen, ngroups, dstate), x (batch, seqlen, nheads, headdim), dt and
    dA_cumsum (batch, nheads, nchunks, chunk_size); the states (batch, nchunks, nheads, headdim,
    dstate)."""
    batch, seqlen, nheads, headdim = x.shape
    _, _, nchunks, chunk_size = dt.shape
    B = np.repeat(B, nheads // B.shape[2], axis=2)
    pad = ((0, 0), (0, nchunks * chunk_size - seqlen), (0, 0), (0, 0))
    x = np.pad(x, pad).reshape(batch, nchunks, chunk_size, nheads, headdim)
    B = np.pad(B, pad).reshape(batch, nchunks, chunk_size, nheads, -1)
    decay_states = np.exp(dA_cumsum[:, :, :, -1:] - dA_cumsum)
    return np.einsum("bclhn,bhcl,bhcl,bclhp->bchpn", B, decay_states, dt, x)


SHAPES = {"default": dict(batch=1, seqlen=256, chunk_size=64, ngroups=1, nheads=2, headdim=64,
                          dstate=64),
          "ragged": dict(batch=2, seqlen=150, chunk_size=64, ngroups=1, nheads=2, headdim=80,
                         dstate=48)}


def run(batch, seqlen, chunk_size, ngroups, nheads, headdim, dstate, framework="numpy"):
    """Runs the kernel on fresh inputs (dt in [0, 1], dA_cumsum in [-1, 0]); the largest
    error against float64."""
    inputs = Inputs(framework)
    nchunks = tilelang.cdiv(seqlen, chunk_size)
    B = inputs.randn((batch, seqlen, ngroups, dstate), "float16")
    x = inputs.randn((batch, seqlen, nheads, headdim), "float16")
    dt = inputs.uniform((batch, nheads, nchunks, chunk_size), "float16", 0.0, 1.0)
    dA_cumsum = inputs.uniform((batch, nheads, nchunks, chunk_size), "float16", -1.0, 0.0)
    states = chunk_state_fwd(B, x, dt, dA_cumsum, block_M=64, block_N=64, block_K=64,
                             num_stages=2, threads=128)
    return check("states", states, ref_program(f64(B), f64(x), f64(dt), f64(dA_cumsum)),
                 rtol=1e-2, atol=5e-2)


if __name__ == "__main__":
    print("max error", run(**SHAPES["default"]))
