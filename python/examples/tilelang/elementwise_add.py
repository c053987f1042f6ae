"""Element-wise C = A + B, as TileLang's examples/elementwise/example_elementwise_add.py writes it:
@tilelang.jit's eager form, whose body declares A and B with their T.const sizes and makes C with
T.empty; a block stages its A and B tiles in shared memory, adds them in a fragment and writes C
through shared memory. Run it: python3 python/examples/tilelang/elementwise_add.py"""

import tile as tilelang
import tile.language as T

from _harness import Inputs, check, f64


@tilelang.jit
def elementwise_add(A, B, block_M, block_N, in_dtype, out_dtype, threads):
    M, N = T.const("M, N")

    A: T.Tensor((M, N), in_dtype)
    B: T.Tensor((M, N), in_dtype)
    C = T.empty((M, N), out_dtype)

    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
        A_shared = T.alloc_shared((block_M, block_N), in_dtype)
        B_shared = T.alloc_shared((block_M, block_N), in_dtype)
        C_local = T.alloc_fragment((block_M, block_N), out_dtype)
        C_shared = T.alloc_shared((block_M, block_N), out_dtype)

        T.copy(A[by * block_M, bx * block_N], A_shared)
        T.copy(B[by * block_M, bx * block_N], B_shared)
        for local_y, local_x in T.Parallel(block_M, block_N):
            C_local[local_y, local_x] = A_shared[local_y, local_x] + B_shared[local_y, local_x]
        T.copy(C_local, C_shared)
        T.copy(C_shared, C[by * block_M, bx * block_N])

    return C


def ref_program(x, y):
    return x + y


# The ragged shape is one row of a width no tile divides.
SHAPES = {"default": dict(M=256, N=512), "ragged": dict(M=1, N=77)}


def run(M, N, framework="numpy", dtype="float32"):
    """Runs the kernel on fresh inputs; the largest error against float64."""
    inputs = Inputs(framework)
    a, b = inputs.randn((M, N), dtype), inputs.randn((M, N), dtype)
    c = elementwise_add(a, b, block_M=32, block_N=32, in_dtype=dtype, out_dtype=dtype,
                        threads=128)
    return check("C", c, ref_program(f64(a), f64(b)), rtol=1e-6, atol=1e-6)


if __name__ == "__main__":
    print("max error", run(**SHAPES["default"]))
