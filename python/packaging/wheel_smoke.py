"""Checks an installed tile wheel from outside the checkout (scripts/test_wheel.sh runs it in the
wheel's virtual environment): the package and libtile are the installed copies, a kernel from
text runs on numpy through the C call path, and a tile.language kernel (protobuf from PyPI)
compiles and runs. Needs nothing of the checkout."""

import os
import sys

import numpy as np

import tile
import tile.language as T

SCALE_ADD = """ir_version 1;
producer "wheel-smoke" "0.1.0";

kernel scale_add<N: i32>(X: f32[N], Y: f32[N], alpha: f32, Z: f32[N])
    grid(bx: ceildiv(N, 64)) threads(64) {
  alloc X_l: fragment f32[64];
  alloc Y_l: fragment f32[64];
  alloc Z_l: fragment f32[64];
  copy X[bx * 64 +: 64] -> X_l;
  copy Y[bx * 64 +: 64] -> Y_l;
  for i in 0 +: 64 parallel {
    Z_l[i] = alpha * X_l[i] + Y_l[i];
  }
  copy Z_l -> Z[bx * 64 +: 64];
}
"""

M, N, K = T.symbolic("M"), T.symbolic("N"), T.symbolic("K")


@T.prim_func
def gemm(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
         C: T.Tensor((M, N), "float32")):
    with T.Kernel(T.ceildiv(N, 64), T.ceildiv(M, 64), threads=128) as (bx, by):
        A_s = T.alloc_shared((64, 32), "float16")
        B_s = T.alloc_shared((32, 64), "float16")
        C_l = T.alloc_fragment((64, 64), "float32")
        T.clear(C_l)
        for k in T.Pipelined(T.ceildiv(K, 32), num_stages=2):
            T.copy(A[by * 64, k * 32], A_s)
            T.copy(B[k * 32, bx * 64], B_s)
            T.gemm(A_s, B_s, C_l)
        T.copy(C_l, C[by * 64, bx * 64])


def main():
    package = os.path.dirname(os.path.abspath(tile.__file__))
    assert package.startswith(os.path.realpath(sys.prefix)) or package.startswith(sys.prefix), \
        f"tile was imported from {package}, not from this environment ({sys.prefix})"
    library = tile._lib._library_path()
    assert library == os.path.join(package, "libtile.so"), library
    assert "TILE_LIBRARY" not in os.environ and "TILE_LAUNCH_EXTENSION" not in os.environ

    kernel = tile.compile(tile.load(SCALE_ADD), kernel="scale_add", target="cpu")
    assert kernel.call_path == "c", kernel.call_path
    x = np.arange(300, dtype=np.float32)
    y = np.ones(300, np.float32)
    z = np.full(300, np.nan, np.float32)
    kernel(x, y, 1.5, z)
    np.testing.assert_allclose(z, 1.5 * x + y, rtol=1e-6)

    rng = np.random.default_rng(0)
    a = rng.standard_normal((100, 70)).astype(np.float16)
    b = rng.standard_normal((70, 90)).astype(np.float16)
    c = np.full((100, 90), np.nan, np.float32)
    gemm(a, b, c)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-3,
                               atol=1e-3)

    import google.protobuf  # pylint: disable=import-outside-toplevel
    from tile._version import __version__  # pylint: disable=import-outside-toplevel
    print(f"wheel_smoke: ok: tile {__version__} "
          f"from {package}, Python {sys.version.split()[0]}, numpy {np.__version__}, "
          f"protobuf {google.protobuf.__version__}; scale_add and a tile.language GEMM ran "
          f"on the CPU through the '{kernel.call_path}' call path")


if __name__ == "__main__":
    main()
