"""TileLang's modules beyond the language that its example programs import: carver's device
facts, language.fp8, utils.tensor.get_tensor_supply, and T.Persistent (the persistent GEMM's
loop), each doing what the program relies on or refusing by name."""

import numpy as np
import pytest

import tile as tilelang
import tile.language as T
from tile import _targets


def test_persistent_visits_every_tile_once_for_any_wave_count_and_group():
    @tilelang.jit(target="cpu")
    def add_one(A, block_M, block_N, waves_of, group_size=8):
        M, N = T.const("M, N")
        A: T.Tensor((M, N), T.float32)
        B = T.empty((M, N), T.float32)
        with T.Kernel(waves_of, threads=32) as block_id:
            for bx, by in T.Persistent([T.ceildiv(M, block_M), T.ceildiv(N, block_N)],
                                       waves_of, block_id, group_size=group_size):
                for i, j in T.Parallel(block_M, block_N):
                    if bx * block_M + i < M and by * block_N + j < N:
                        B[bx * block_M + i, by * block_N + j] += 1.0
        return B

    @tilelang.jit(target="cpu")
    def add_one_1d(A, block, waves_of):
        N = T.const("N")
        A: T.Tensor((N,), T.float32)
        B = T.empty((N,), T.float32)
        with T.Kernel(waves_of, threads=32) as block_id:
            for b in T.Persistent([T.ceildiv(N, block)], waves_of, block_id):
                for i in T.Parallel(block):
                    if b * block + i < N:
                        B[b * block + i] = A[b * block + i] + 1.0
        return B

    a = np.random.default_rng(0).standard_normal((70, 45)).astype(np.float32)
    # `B += 1` counts the visits of each element when B is passed in as zeros.
    for waves_of, group in ((5, 3), (7, 8), (1, 1), (64, 2), (54, 4)):
        kernel = add_one.compile(M=70, N=45, block_M=8, block_N=8, waves_of=waves_of,
                                 group_size=group)
        b = np.zeros((70, 45), np.float32)
        kernel.compiled()(a, b)  # B given, zeros: each element counts its visits
        assert (b == 1.0).all(), (waves_of, group, np.unique(b))
    for waves_of in (1, 3, 100):
        np.testing.assert_array_equal(add_one_1d(a[0], 16, waves_of), a[0] + 1.0)
    text = add_one.compile(M=70, N=45, block_M=8, block_N=8, waves_of=5).ir()
    assert "serial" in text and "let tile_id: i32 = wave * 5 + block_id" in text


def test_persistent_refuses_a_3d_domain():
    with pytest.raises(ValueError, match="T.Persistent: the domain has 1 or 2 axes, not 3"):
        @T.prim_func
        def k(A: T.Tensor((8,), "float32")):  # pylint: disable=unused-variable
            with T.Kernel(2, threads=32) as b:
                for x, y, z in T.Persistent([2, 2, 2], 2, b):  # pylint: disable=unused-variable
                    A[x] = 0.0


def test_fp8_type_is_torchs_e4m3fn():
    from tile.language.fp8 import determine_fp8_type
    assert determine_fp8_type() == T.float8_e4m3fn and str.__str__(determine_fp8_type()) == \
        "float8_e4m3fn"
    assert determine_fp8_type("e5m2") == T.float8_e5m2
    with pytest.raises(ValueError, match="unknown FP8 format 'e3m4'"):
        determine_fp8_type("e3m4")


def test_tensor_supply_makes_a_kernels_inputs():
    from tile.utils.tensor import TensorSupplyType, get_tensor_supply

    @T.prim_func
    def k(A: T.Tensor((4, 6), "float16"), B: T.Tensor((3,), "int32")):
        with T.Kernel(1, threads=32):
            A[0, 0] = A[0, 0]

    supply = get_tensor_supply(TensorSupplyType.Integer, target="cpu")
    params = tilelang.compile(k, target="cpu").input_params()
    a, b = supply(params[0]), supply(params[1])
    assert a.shape == (4, 6) and a.dtype == np.float16 and set(np.unique(a)) <= {-2, -1, 0, 1, 2}
    assert b.shape == (3,) and b.dtype == np.int32
    with pytest.raises(TypeError, match="supply_type is a TensorSupplyType"):
        get_tensor_supply("Integer")


def test_carver_names_the_device_or_says_there_is_none():
    from tile.carver.arch import CDNA, CUDA, driver
    from tile.carver.roller.rasterization import NoRasterization
    from tile.carver.template import MatmulTemplate
    assert issubclass(NoRasterization, object)
    if _targets.cuda_arch() is None:
        with pytest.raises(RuntimeError, match="get_num_sms: no CUDA device answers"):
            driver.get_num_sms()
        with pytest.raises(RuntimeError, match="carver.arch.CUDA: no CUDA device answers"):
            CUDA("cuda")
    else:
        assert driver.get_num_sms() > 0 and CUDA("cuda").compute_max_core == driver.get_num_sms()
    with pytest.raises(NotImplementedError, match="does not query AMD devices"):
        CDNA("hip")
    template = MatmulTemplate(M=64, N=64, K=64).with_arch(None)
    with pytest.raises(NotImplementedError, match="recommend_hints .* tile has no roller"):
        template.recommend_hints(topk=4)


def test_sigmoid_parallel_and_register_hints():
    @T.prim_func
    def k(X: T.Tensor((50,), "float32"), Y: T.Tensor((50,), "float32")):
        with T.Kernel(1, threads=64):
            T.disable_warp_group_reg_alloc()
            T.no_set_max_nreg()
            T.assume(X.shape[0] == 50)
            for i in T.parallel(0, 50):
                Y[i] = T.sigmoid(X[i])

    x = np.random.default_rng(2).standard_normal(50).astype(np.float32)
    y = np.full(50, np.nan, np.float32)
    k(x, y)
    np.testing.assert_allclose(y, 1 / (1 + np.exp(-x.astype(np.float64))), rtol=1e-6)
    with pytest.raises(TypeError, match="T.sigmoid: takes a floating-point argument, not i32"):
        @T.prim_func
        def k2(A: T.Tensor((4,), "int32")):  # pylint: disable=unused-variable
            with T.Kernel(1, threads=32):
                A[0] = T.sigmoid(A[0])


def test_set_autotune_inputs_gives_the_candidates_their_tensors():
    from tile.autotuner import AutoTuner, set_autotune_inputs

    def factory(block=None):
        @T.prim_func
        def first_half(X: T.Tensor((64,), "float32"), Y: T.Tensor((64,), "float32")):
            with T.Kernel(T.ceildiv(64, block), threads=32) as bx:
                for i in T.Parallel(block):
                    Y[bx * block + i] = X[bx * block + i] * 2.0
        return first_half

    x = np.arange(64, dtype=np.float32)
    seen = []

    def ref(X):
        seen.append(X)
        return X.astype(np.float64) * 2.0

    with set_autotune_inputs(x):
        tuner = AutoTuner.from_kernel(kernel=factory, configs=[{"block": 16}, {"block": 32}])
        tuner.set_compile_args(out_idx=[-1], target="cpu")
        tuner.set_profile_args(ref_prog=ref, warmup=1, rep=2)
        result = tuner.run()
    assert seen and seen[0] is x and result.config in ({"block": 16}, {"block": 32})


def test_atomic_add_of_two_and_four_consecutive_elements():
    @T.prim_func
    def k(X: T.Tensor((8, 16), "float32"), Y: T.Tensor((16,), "float32")):
        with T.Kernel(1, threads=32):
            for r, q in T.Parallel(8, 4):
                T.atomic_addx4(Y[q * 4], X[r, q * 4])
            for r in T.Parallel(8):
                T.atomic_addx2(Y[0], X[r, 0])

    x = np.random.default_rng(4).standard_normal((8, 16)).astype(np.float32)
    y = np.zeros(16, np.float32)
    k(x, y)
    want = x.astype(np.float64).sum(axis=0)
    want[:2] *= 2
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)
    with pytest.raises(TypeError, match=r"T.atomic_addx4: dst names one element"):
        @T.prim_func
        def k2(A: T.Tensor((8,), "float32")):  # pylint: disable=unused-variable
            with T.Kernel(1, threads=32):
                T.atomic_addx4(A[0:4], A[4])


def test_contrib_nvcc_compute_version():
    from tile.contrib import nvcc
    assert nvcc.parse_compute_version("9.0") == (9, 0)
    if _targets.cuda_arch() is None:
        with pytest.raises(RuntimeError, match="no CUDA device answers"):
            nvcc.get_target_compute_version()
    else:
        assert float(nvcc.get_target_compute_version()) >= 5.0


def test_alloc_buffer_makes_what_its_scope_names():
    @T.prim_func
    def k(X: T.Tensor((32,), "float32"), Y: T.Tensor((32,), "float32")):
        with T.Kernel(1, threads=32):
            S = T.alloc_buffer((32,), "float32", scope="shared.dyn")
            F = T.alloc_buffer((32,), "float32", scope="local.fragment")
            T.copy(X, S)
            T.copy(S, F)
            for i in T.Parallel(32):
                F[i] = F[i] + 1.0
            T.copy(F, Y)

    text = k.compile().ir()
    assert "alloc S: shared f32[32]" in text and "alloc F: fragment f32[32]" in text
    x = np.arange(32, dtype=np.float32)
    y = np.zeros(32, np.float32)
    k(x, y)
    np.testing.assert_array_equal(y, x + 1)
    with pytest.raises(NotImplementedError, match=r"scope='global': .* T.alloc_global"):
        @T.prim_func
        def k2(A: T.Tensor((4,), "float32")):  # pylint: disable=unused-variable
            with T.Kernel(1, threads=32):
                T.alloc_buffer((4,), "float32")


def test_cache_switches(monkeypatch):
    from tile import cache
    monkeypatch.delenv("TILE_DISABLE_CACHE", raising=False)
    monkeypatch.setattr(cache, "_compiled_targets", set())
    assert tilelang.is_cache_enabled()
    tilelang.disable_cache()
    assert not tilelang.is_cache_enabled()
    cache.note_compile("cpu")
    with pytest.warns(RuntimeWarning, match="compiled for cpu already"):
        tilelang.enable_cache()
    assert tilelang.is_cache_enabled()


def test_profiler_func_is_the_kernel():
    @T.prim_func
    def k(X: T.Tensor((8,), "float32"), Y: T.Tensor((8,), "float32")):
        with T.Kernel(1, threads=32):
            for i in T.Parallel(8):
                Y[i] = X[i] + 1.0

    kernel = tilelang.compile(k, out_idx=[-1], target="cpu")
    x = np.arange(8, dtype=np.float32)
    np.testing.assert_array_equal(kernel.get_profiler().func(x), x + 1)
def test_torch_and_numpy_dtypes_are_dtypes():
    # TileLang's programs write T.dtype(torch.float16) and dtype.as_torch(); torch is not
    # installed where this runs, so a torch dtype is stood in for by its type's module and str.
    assert T.dtype(np.dtype("float16")) == T.float16
    fake_torch_dtype = type("dtype", (), {"__module__": "torch", "__str__":
                                          lambda self: "torch.bfloat16"})()
    assert T.dtype(fake_torch_dtype) == T.bfloat16
    assert callable(T.float16.as_torch)


