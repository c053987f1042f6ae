"""GEMV, C = B @ A with B (N, K) and A (K,), as TileLang's examples/gemv/example_gemv.py writes
it, in the eager @tilelang.jit form (sizes by T.const, C made by T.empty), two ways:
splitk_gemv, the thread-level kernel (threads=(BLOCK_N, reduce_threads), each thread's share
of K summed in a local register and added into a shared partial with T.atomic_add), and
gemv_tile, the tile-level one that TileLang's gemv_alloc_reducer is (a block of rows times a
K-tile of A in T.Parallel, reduced with T.reduce_sum; TileLang's T.alloc_reducer is not in
tile.language). TileLang's kernels take N and K divisible by the blocks; here loads and stores
are guarded, so ragged sizes work too. In splitk_gemv every thread stores C[n] after its atomic
add; a GPU's barriers (placed by the compiler) make each read the whole sum, and the CPU, which
runs a block's threads one after another (x fastest), ends with the store of the last tk, which
has it too.
Run it: python3 python/examples/tilelang/gemv.py"""

import tile as tilelang
import tile.language as T

from _harness import Inputs, check, f64


@tilelang.jit
def splitk_gemv(A, B, BLOCK_N: int, BLOCK_K: int, reduce_threads: int,
                dtype: T.dtype = T.float16, accum_dtype: T.dtype = T.float):
    N, K = T.const("N, K")
    TILE_K = T.ceildiv(BLOCK_K, reduce_threads)

    A: T.Tensor((K,), dtype)
    B: T.Tensor((N, K), dtype)
    C = T.empty((N,), dtype)

    with T.Kernel(T.ceildiv(N, BLOCK_N), threads=(BLOCK_N, reduce_threads)) as bn:
        tn = T.get_thread_binding(0)
        tk = T.get_thread_binding(1)
        A_local = T.alloc_local((TILE_K,), dtype)
        B_local = T.alloc_local((TILE_K,), dtype)
        C_shared = T.alloc_shared((BLOCK_N,), accum_dtype)
        C_accum = T.alloc_local((1,), accum_dtype)
        n = bn * BLOCK_N + tn
        if tk == 0:
            C_shared[tn] = 0
        T.clear(C_accum)
        for bk in T.serial(T.ceildiv(K, BLOCK_K)):
            for k in T.serial(TILE_K):
                kk = bk * BLOCK_K + tk * TILE_K + k
                A_local[k] = 0
                B_local[k] = 0
                if kk < K and n < N:
                    A_local[k] = A[kk]
                    B_local[k] = B[n, kk]
            for k in T.serial(TILE_K):  # TileLang: A_local[k].astype(accum_dtype) ...
                C_accum[0] += T.cast(A_local[k], accum_dtype) * T.cast(B_local[k], accum_dtype)
        T.atomic_add(C_shared[tn], C_accum[0])
        if n < N:
            C[n] = C_shared[tn]

    return C


@tilelang.jit
def gemv_tile(A, B, BLOCK_N: int, BLOCK_K: int, num_stages: int = 2, threads: int = 128,
              dtype: T.dtype = T.float16, accum_dtype: T.dtype = T.float):
    N, K = T.const("N, K")

    A: T.Tensor((K,), dtype)
    B: T.Tensor((N, K), dtype)
    C = T.empty((N,), dtype)

    with T.Kernel(T.ceildiv(N, BLOCK_N), threads=threads) as bn:
        A_shared = T.alloc_shared((BLOCK_K,), dtype)
        B_shared = T.alloc_shared((BLOCK_N, BLOCK_K), dtype)
        products = T.alloc_fragment((BLOCK_N, BLOCK_K), accum_dtype)
        partial = T.alloc_fragment((BLOCK_N,), accum_dtype)
        C_local = T.alloc_fragment((BLOCK_N,), accum_dtype)
        T.clear(C_local)
        for bk in T.Pipelined(T.ceildiv(K, BLOCK_K), num_stages=num_stages):
            T.copy(A[bk * BLOCK_K], A_shared)
            T.copy(B[bn * BLOCK_N, bk * BLOCK_K], B_shared)
            for i, k in T.Parallel(BLOCK_N, BLOCK_K):
                products[i, k] = (T.cast(A_shared[k], accum_dtype)
                                  * T.cast(B_shared[i, k], accum_dtype))
            T.reduce_sum(products, partial, dim=1)
            for i in T.Parallel(BLOCK_N):
                C_local[i] += partial[i]
        T.copy(C_local, C[bn * BLOCK_N])

    return C


def ref_program(A, B):
    return B @ A


SHAPES = {"default": dict(N=512, K=512), "ragged": dict(N=130, K=200)}


def run(N, K, framework="numpy"):
    """Runs both kernels on fresh inputs; the largest error against float64."""
    inputs = Inputs(framework)
    a, b = inputs.randn((K,), "float16"), inputs.randn((N, K), "float16")
    reference = ref_program(f64(a), f64(b))
    c_thread = splitk_gemv(a, b, 32, 32, 8)
    c_tile = gemv_tile(a, b, 64, 64)
    return max(check("C (splitk_gemv)", c_thread, reference, rtol=1e-2, atol=5e-2),
               check("C (gemv_tile)", c_tile, reference, rtol=1e-2, atol=5e-2))


if __name__ == "__main__":
    print("max error", run(**SHAPES["default"]))
