"""Inclusive prefix sums with T.cumsum. chunk_local_cumsum is TileLang's
examples/gdn/example_cumsum.py (tilelang_chunk_local_cumsum_scalar): the gates G of shape
(B, S, H), or (B, H, S) head first, summed along S within chunks of block_S, forward or reverse,
in shared memory or (use_fragment) in a fragment; out_idx=[-1] makes G_new. cumsum_rows is the
tile form of TileLang's scan test (testing/python/language/test_tilelang_language_scan.py):
a (block_M, block_N) tile of a 2-D tensor summed along its rows. cumsum_region is the region
form of TileLang's T.cumsum docstring: chunks of a 1-D global tensor summed straight from its
region into the output's, with no staging tile. TileLang's example allocates
its fragment with scope="shared" (shared memory, there and here). On GPU targets a scan of a
shared tile runs one thread per row with a running sum, and a fragment whose rows span threads
is scanned through a shared copy (docs/LOWERING.md).
Run it: python3 python/examples/tilelang/cumsum.py"""

import numpy as np

import tile as tilelang
import tile.language as T

from _harness import Inputs, check, f64


@tilelang.jit(out_idx=[-1],
              pass_configs={tilelang.PassConfigKey.TL_DISABLE_WARP_SPECIALIZED: True})
def chunk_local_cumsum(B, S, H, chunk_size=64, head_first=False, reverse=False,
                       input_dtype=T.float16, output_dtype=T.float32, block_S=64, threads=256,
                       use_fragment=False):
    G_shape = (B, H, S) if head_first else (B, S, H)
    assert chunk_size == 2**(chunk_size.bit_length() - 1), "chunk_size must be a power of 2"
    assert chunk_size == block_S, "chunk_size must be equal to block_S"

    @T.prim_func
    def kernel(G: T.Tensor(G_shape, dtype=input_dtype),
               G_new: T.Tensor(G_shape, dtype=output_dtype)):
        with T.Kernel(T.ceildiv(S, block_S), B * H, threads=threads) as (bs, bbh):
            bb, bh = bbh // H, bbh % H
            G_shared = T.alloc_shared((1, block_S), dtype=output_dtype, scope="shared")
            if head_first:
                T.copy(G[bb, bh, bs * block_S:(bs + 1) * block_S], G_shared)
            else:
                T.copy(G[bb, bs * block_S:(bs + 1) * block_S, bh], G_shared)
            if use_fragment:
                G_fragment = T.alloc_fragment((1, block_S), dtype=output_dtype)
                T.copy(G_shared, G_fragment)
                T.cumsum(G_fragment, dim=1, reverse=reverse)
                if head_first:
                    T.copy(G_fragment, G_new[bb, bh, bs * block_S:(bs + 1) * block_S])
                else:
                    T.copy(G_fragment, G_new[bb, bs * block_S:(bs + 1) * block_S, bh])
            else:
                T.cumsum(G_shared, dim=1, reverse=reverse)
                if head_first:
                    T.copy(G_shared, G_new[bb, bh, bs * block_S:(bs + 1) * block_S])
                else:
                    T.copy(G_shared, G_new[bb, bs * block_S:(bs + 1) * block_S, bh])

    return kernel


@tilelang.jit(out_idx=[-1])
def cumsum_rows(M, N, block_M, block_N, reverse=False, dtype=T.float32, use_fragment=False):

    @T.prim_func
    def cumsum(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=256) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_N), dtype)
            T.copy(A[by * block_M, bx * block_N], A_shared)
            if use_fragment:
                A_fragment = T.alloc_fragment((block_M, block_N), dtype)
                T.copy(A_shared, A_fragment)
                T.cumsum(src=A_fragment, dim=1, reverse=reverse)
                T.copy(A_fragment, B[by * block_M, bx * block_N])
            else:
                T.cumsum(src=A_shared, dim=1, reverse=reverse)
                T.copy(A_shared, B[by * block_M, bx * block_N])

    return cumsum


@tilelang.jit(out_idx=[-1])
def cumsum_region(N, chunk_size, reverse=False, dtype=T.float32):

    @T.prim_func
    def cumsum(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype)):
        with T.Kernel(T.ceildiv(N, chunk_size), threads=chunk_size) as bx:
            chunk_start = bx * chunk_size
            T.cumsum(src=A[chunk_start:chunk_start + chunk_size],
                     dst=B[chunk_start:chunk_start + chunk_size], dim=0, reverse=reverse)

    return cumsum


def ref_program(x, chunk, axis, reverse=False):
    """float64 inclusive cumsum of x along axis within consecutive chunks of `chunk`."""
    x = np.moveaxis(x, axis, -1)
    out = np.empty_like(x)
    for start in range(0, x.shape[-1], chunk):
        part = x[..., start:start + chunk]
        part = part[..., ::-1].cumsum(axis=-1)[..., ::-1] if reverse else part.cumsum(axis=-1)
        out[..., start:start + chunk] = part
    return np.moveaxis(out, -1, axis)


# The ragged shape's S leaves a last chunk of 36 of 64, and its one head makes the rows' tile
# one row tall.
SHAPES = {"default": dict(B=2, S=256, H=4), "ragged": dict(B=1, S=100, H=1)}


def run(B, S, H, framework="numpy"):
    """Runs the chunk cumsum (TileLang's config: reverse, in shared memory; and forward, head
    first, in a fragment), the rows' cumsum on a (B * H, S) tensor and the region form on B * S * H
    numbers; the largest error against float64."""
    inputs = Inputs(framework)
    errors = []
    for head_first, reverse, use_fragment in ((False, True, False), (True, False, True)):
        g = inputs.randn((B, H, S) if head_first else (B, S, H), "float16")
        kernel = chunk_local_cumsum(B, S, H, head_first=head_first, reverse=reverse,
                                    use_fragment=use_fragment)
        want = ref_program(f64(g), 64, 2 if head_first else 1, reverse)
        errors.append(check(f"G_new (head_first={head_first}, reverse={reverse})", kernel(g),
                            want, rtol=1e-5, atol=1e-5))
    a = inputs.randn((B * H, S), "float32")
    for reverse, use_fragment in ((False, False), (True, True)):
        kernel = cumsum_rows(B * H, S, 4, 64, reverse=reverse, use_fragment=use_fragment)
        errors.append(check(f"B (rows, reverse={reverse})", kernel(a),
                            ref_program(f64(a), 64, 1, reverse), rtol=1e-5, atol=1e-5))
    flat = inputs.randn((B * S * H,), "float32")
    kernel = cumsum_region(B * S * H, 64, reverse=True)
    errors.append(check("B (region, reverse)", kernel(flat), ref_program(f64(flat), 64, 0, True),
                        rtol=1e-5, atol=1e-5))
    return max(errors)


if __name__ == "__main__":
    print("max error", run(**SHAPES["default"]))
