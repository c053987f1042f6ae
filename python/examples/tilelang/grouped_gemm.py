"""MoE-style grouped GEMM, as TileLang's examples/grouped_gemm/example_grouped_gemm_fwd.py
writes it: the eager @tilelang.jit form; the groups' rows of A (batch_sum, K) lie one after
another, group g multiplies its rows by B[g] (K, N) (or B[g] (N, K) with trans_b), and one
launch covers every group: each group's rows are padded to whole block_M tiles, and a block
finds its group by comparing its padded row start with batch_padded_offsets (a T.alloc_var
updated in a Python loop over the groups), then stores only the rows its group has. The group
sizes and offsets are int32 tensors; the sizes are also a compile-time tuple (the grid size).
Run it: python3 python/examples/tilelang/grouped_gemm.py"""

import numpy as np

import tile as tilelang
import tile.language as T

from _harness import Inputs, check, f64


@tilelang.jit
def grouped_gemm(A, B, batch_sizes, batch_offsets, batch_padded_offsets, batch_sizes_list,
                 block_M, block_N, block_K, trans_b=False, num_stages=2, threads=128,
                 dtype=T.float16):
    K, N = T.const("K, N")
    batch_sum = sum(batch_sizes_list)
    batch_count = len(batch_sizes_list)
    accum_dtype = T.float32
    total_m_blocks = sum((size + block_M - 1) // block_M for size in batch_sizes_list)

    B_shape = [batch_count, N, K] if trans_b else [batch_count, K, N]
    B_shared_shape = [block_N, block_K] if trans_b else [block_K, block_N]

    A: T.Tensor([batch_sum, K], dtype)
    B: T.Tensor(B_shape, dtype)
    C = T.empty([batch_sum, N], dtype)
    batch_sizes: T.Tensor([batch_count], T.int32)
    batch_offsets: T.Tensor([batch_count], T.int32)
    batch_padded_offsets: T.Tensor([batch_count], T.int32)

    with T.Kernel(total_m_blocks, T.ceildiv(N, block_N), threads=threads) as (bx, by):
        A_shared = T.alloc_shared([block_M, block_K], dtype)
        B_shared = T.alloc_shared(B_shared_shape, dtype)
        C_local = T.alloc_fragment([block_M, block_N], accum_dtype)
        cur_batch_idx = T.alloc_var(dtype=T.int32)
        cur_batch_size = T.alloc_var(dtype=T.int32)

        m_start_padded = bx * block_M

        cur_batch_idx = 0
        for i in range(batch_count):
            in_cur_batch_idx = m_start_padded >= batch_padded_offsets[i]
            cur_batch_idx = T.if_then_else(in_cur_batch_idx, i, cur_batch_idx)

        cur_batch_size = batch_sizes[cur_batch_idx]
        m_start = (m_start_padded - batch_padded_offsets[cur_batch_idx]
                   + batch_offsets[cur_batch_idx])
        actual_rows = T.max(0, T.min(block_M, cur_batch_size + batch_padded_offsets[cur_batch_idx]
                                     - m_start_padded))

        T.clear(C_local)
        for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
            T.copy(A[m_start:m_start + block_M, k * block_K:(k + 1) * block_K], A_shared)
            if trans_b:
                T.copy(B[cur_batch_idx, by * block_N:(by + 1) * block_N,
                         k * block_K:(k + 1) * block_K], B_shared)
            else:
                T.copy(B[cur_batch_idx, k * block_K:(k + 1) * block_K,
                         by * block_N:(by + 1) * block_N], B_shared)
            T.gemm(A_shared, B_shared, C_local, transpose_B=trans_b)

        for i, j in T.Parallel(block_M, block_N):
            if i < actual_rows and by * block_N + j < N:
                C[m_start + i, by * block_N + j] = C_local[i, j]

    return C


def ref_program(A, B, batch_sizes_list, trans_b=False):
    out, start = [], 0
    for g, size in enumerate(batch_sizes_list):
        out.append(A[start:start + size] @ (B[g].T if trans_b else B[g]))
        start += size
    return np.concatenate(out)


def group_offsets(batch_sizes_list, padding_M):
    """Each group's first row, and its first row once every group is padded to padding_M."""
    sizes = np.asarray(batch_sizes_list)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    padded = np.concatenate([[0], np.cumsum(-(-sizes // padding_M) * padding_M)[:-1]])
    return offsets, padded


def _int32(inputs, values):
    """An int32 tensor holding `values`, in the run's framework (the harness draws random
    tensors only)."""
    values = np.asarray(values, dtype=np.int32)
    if inputs.framework == "numpy":
        return values
    import torch  # pylint: disable=import-outside-toplevel
    return torch.from_numpy(values).to(inputs.device)


SHAPES = {"default": dict(batch_sizes=(64, 128, 192), K=128, N=256),
          "ragged": dict(batch_sizes=(63, 77, 1, 111), K=70, N=130)}


def run(batch_sizes, K, N, framework="numpy", block_M=64):
    """Runs the kernel with B and with B transposed; the largest error against float64."""
    inputs = Inputs(framework)
    batch_sizes_list = tuple(batch_sizes)
    offsets, padded = group_offsets(batch_sizes_list, block_M)
    error = 0.0
    for trans_b in (False, True):
        a = inputs.randn((sum(batch_sizes_list), K), "float16")
        b = inputs.randn((len(batch_sizes_list), N, K) if trans_b
                         else (len(batch_sizes_list), K, N), "float16")
        c = grouped_gemm(a, b, _int32(inputs, batch_sizes_list), _int32(inputs, offsets),
                         _int32(inputs, padded), batch_sizes_list, block_M, 64, 32,
                         trans_b=trans_b)
        error = max(error, check(f"C (trans_b={trans_b})", c,
                                 ref_program(f64(a), f64(b), batch_sizes_list, trans_b),
                                 rtol=1e-2, atol=5e-2))
    return error


if __name__ == "__main__":
    print("max error", run(**SHAPES["default"]))
