"""An autotuned GEMM, as TileLang's examples/gemm/example_gemm_autotune.py tunes one:
@tilelang.autotune(configs=..., ref_prog=...) above @tilelang.jit(out_idx=[-1]) on a factory
of the problem and the tile sizes (C = A @ B.T, B stored (N, K), C staged through shared
memory, T.use_swizzle when the config asks). Calling the factory tunes once: each config is
traced and compiled, run on the same inputs and checked against ref_prog, and the fastest
correct one's kernel is returned, with .config and .latency. TileLang tunes hundreds of
configs on a GPU; here a few, so that CI stays quick, and the tuned kernel is checked again on
fresh inputs. Run it: python3 python/examples/tilelang/gemm_autotune.py"""

import itertools

import tile as tilelang
import tile.language as T

from _harness import Inputs, check, f64


def ref_program(A, B):
    return A @ B.T


def get_configs():
    iter_params = dict(block_M=[64, 128], block_N=[64, 128], block_K=[32], num_stages=[2],
                       thread_num=[128], enable_rasteration=[True])
    return [dict(zip(iter_params, values)) for values in itertools.product(*iter_params.values())]


@tilelang.autotune(configs=get_configs(), ref_prog=ref_program, warmup=2, rep=5)
@tilelang.jit(out_idx=[-1])
def matmul(M, N, K, block_M=128, block_N=128, block_K=32, num_stages=2, thread_num=128,
           enable_rasteration=True, dtype=T.float16, accum_dtype=T.float32):

    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((N, K), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=thread_num) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_N, block_K), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            C_shared = T.alloc_shared((block_M, block_N), dtype)
            T.use_swizzle(panel_size=10, enable=enable_rasteration)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[bx * block_N, k * block_K], B_shared)
                T.gemm(A_shared, B_shared, C_local, transpose_B=True)
            T.copy(C_local, C_shared)
            T.copy(C_shared, C[by * block_M, bx * block_N])

    return main


SHAPES = {"default": dict(M=256, N=256, K=128), "ragged": dict(M=200, N=130, K=70)}


def run(M, N, K, framework="numpy"):
    """Tunes for the shape, then runs the chosen kernel on fresh inputs; the largest error
    against float64."""
    kernel = matmul(M, N, K)
    if kernel.config not in get_configs():
        raise AssertionError(f"the tuner chose {kernel.config}, not one of the configs")
    inputs = Inputs(framework, seed=1)
    a, b = inputs.randn((M, K), "float16"), inputs.randn((N, K), "float16")
    c = kernel(a, b)
    return check(f"C (config {kernel.config})", c, ref_program(f64(a), f64(b)), rtol=1e-2,
                 atol=5e-2)


if __name__ == "__main__":
    print("max error", run(**SHAPES["default"]))
