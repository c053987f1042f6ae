"""tile.torch: tile kernels as torch.library operators, traced by torch.compile(fullgraph=True)
on the CPU. Skipped, saying why, where torch is not installed for this Python."""

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="torch is not installed for this Python: pip install torch (the wheel's "
    "venv in scripts/test_wheel.sh installs it with TILE_WHEEL_TORCH=1)")

import tile  # noqa: E402  pylint: disable=wrong-import-position
import tile.language as T  # noqa: E402  pylint: disable=wrong-import-position
import tile.torch  # noqa: E402  pylint: disable=wrong-import-position

N = T.symbolic("N")
M = T.symbolic("M")


@T.prim_func
def scaled_add(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32"), alpha: T.float32,
               Z: T.Tensor((N,), "float32")):
    with T.Kernel(T.ceildiv(N, 64), threads=64) as bx:
        for i in T.Parallel(64):
            if bx * 64 + i < N:
                Z[bx * 64 + i] = alpha * X[bx * 64 + i] + Y[bx * 64 + i]


@T.prim_func
def split(X: T.Tensor((M, 8), "float32"), Lo: T.Tensor((M, 8), "float32"), scale: T.float32,
          Hi: T.Tensor((M, 8), "float32")):
    with T.Kernel(T.ceildiv(M, 16), threads=32) as bx:
        for i, j in T.Parallel(16, 8):
            row = bx * 16 + i
            if row < M:
                Lo[row, j] = T.min(X[row, j], 0) * scale
                Hi[row, j] = T.max(X[row, j], 0) * scale


def test_an_op_runs_eagerly_and_its_schema_is_the_kernels():
    op = tile.torch.custom_op(tile.compile(scaled_add, out_idx=-1))
    assert "(Tensor X, Tensor Y, float alpha) -> Tensor" in str(op._opoverload._schema)  # pylint: disable=protected-access
    x, y = torch.arange(100, dtype=torch.float32), torch.ones(100)
    torch.testing.assert_close(op(x, y, 1.5), 1.5 * x + y)
    name = op._qualname.split("::")[1]  # pylint: disable=protected-access
    torch.testing.assert_close(getattr(torch.ops.tile, name)(x, y, 2.0), 2.0 * x + y)


def test_torch_compile_traces_through_with_no_graph_break():
    op = tile.torch.custom_op(tile.compile(scaled_add, out_idx=-1))

    @torch.compile(fullgraph=True, backend="aot_eager")
    def f(x, y):
        return op(torch.sin(x), y, 0.5) * 2

    x, y = torch.randn(300), torch.randn(300)
    torch.testing.assert_close(f(x, y), (0.5 * torch.sin(x) + y) * 2)


def test_inductor_compiles_around_the_op():
    """torch.compile's default backend, as a user calls it: Inductor generates C++ for the
    torch operations around the op (about 30 s the first time on a 2-core machine)."""
    op = tile.torch.custom_op(tile.compile(scaled_add, out_idx=-1))

    @torch.compile(fullgraph=True)
    def f(x, y):
        return op(torch.sin(x), y, 0.5) * 2

    x, y = torch.randn(300), torch.randn(300)
    torch.testing.assert_close(f(x, y), (0.5 * torch.sin(x) + y) * 2)


def test_dynamic_shapes_bind_the_kernels_dims_symbolically():
    op = tile.torch.custom_op(tile.compile(split, out_idx=[1, 3]))
    torch._dynamo.reset()  # pylint: disable=protected-access
    frames = []

    def backend(graph, example_inputs):
        frames.append(graph)
        return graph.forward

    @torch.compile(fullgraph=True, dynamic=True, backend=backend)
    def f(x):
        lo, hi = op(x, 2.0)
        return lo + hi

    for rows in (21, 37, 50):
        x = torch.randn(rows, 8)
        torch.testing.assert_close(f(x), torch.clamp(x, max=0) * 2 + torch.clamp(x, min=0) * 2)
    assert len(frames) == 1, f"recompiled {len(frames)} times for three row counts"


def test_several_outputs_and_an_unsupported_kernel_are_refused_clearly():
    lo, hi = tile.torch.custom_op(tile.compile(split, out_idx=[1, 3]))(torch.randn(5, 8), 1.0)
    assert lo.shape == hi.shape == (5, 8)
    with pytest.raises(TypeError, match="has no out_idx: a torch operator returns its outputs"):
        tile.torch.custom_op(tile.compile(scaled_add))
    with pytest.raises(ValueError, match="is registered for another kernel"):
        tile.torch.custom_op(tile.compile(scaled_add, out_idx=-1), name="taken")
        tile.torch.custom_op(tile.compile(split, out_idx=-1), name="taken")


def test_a_jit_factory_registers_per_specialization():
    @tile.jit(out_idx=-1)
    def scale(n, factor):
        @T.prim_func
        def main(X: T.Tensor((n,), "float32"), Y: T.Tensor((n,), "float32")):
            with T.Kernel(T.ceildiv(n, 32), threads=32) as bx:
                for i in T.Parallel(32):
                    if bx * 32 + i < n:
                        Y[bx * 32 + i] = X[bx * 32 + i] * factor
        return main

    double = tile.torch.custom_op(scale, 40, 2.0)
    triple = tile.torch.custom_op(scale, 40, 3.0)
    assert double is not triple
    x = torch.randn(40)
    torch.testing.assert_close(torch.compile(lambda v: triple(double(v)), fullgraph=True,
                                             backend="aot_eager")(x), x * 6)
    np.testing.assert_allclose(double(x).numpy(), (x * 2).numpy())


@T.prim_func
def scale(X: T.Tensor((N,), "float32"), factor: T.float32, Y: T.Tensor((N,), "float32")):
    with T.Kernel(T.ceildiv(N, 64), threads=64) as bx:
        for i in T.Parallel(64):
            if bx * 64 + i < N:
                Y[bx * 64 + i] = X[bx * 64 + i] * factor


def test_autograd_pairs_the_op_with_a_backward_of_tile_ops():
    forward = tile.torch.custom_op(tile.compile(scaled_add, out_idx=-1), name="scaled_add_ad")
    times = tile.torch.custom_op(tile.compile(scale, out_idx=-1))

    def setup_context(ctx, inputs, output):
        ctx.alpha = inputs[2]

    def backward(ctx, grad):  # d(alpha x + y) = alpha dx + dy; none for the scalar
        return times(grad, ctx.alpha), grad, None

    forward.register_autograd(backward, setup_context=setup_context)

    def loss(x, y, w):
        return (forward(x, y, 1.5) * w).sum()

    w = torch.randn(130)
    for run in (loss, torch.compile(loss, fullgraph=True, backend="aot_eager")):
        x, y = torch.randn(130, requires_grad=True), torch.randn(130, requires_grad=True)
        run(x, y, w).backward()
        torch.testing.assert_close(x.grad, 1.5 * w)
        torch.testing.assert_close(y.grad, w)
    # The gradient of a sum is an expanded (stride 0) tensor: passed on contiguous.
    x = torch.randn(70, requires_grad=True)
    forward(x, torch.zeros(70), 3.0).sum().backward()
    torch.testing.assert_close(x.grad, torch.full((70,), 3.0))
