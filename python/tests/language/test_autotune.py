"""tile.autotune and AutoTuner (TileLang's) over libtile's autotuner: every candidate is
compiled, checked against ref_prog (a wrong one is refused) and timed on the CPU target; the
choice is stored in the kernel cache and found again without tuning."""

import os
import stat

import numpy as np
import pytest

import tile as tilelang
import tile.language as T
from tile.autotuner import AutoTuner, autotune


def ref(X):
    return X.astype(np.float64) * 2.0


def scale_factory(N, block=None, wrong=False):
    @T.prim_func
    def scale(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, block), threads=32) as bx:
            for i in T.Parallel(block):
                if bx * block + i < N:
                    Y[bx * block + i] = X[bx * block + i] * (3.0 if wrong else 2.0)
    return scale


CONFIGS = [{"block": 32}, {"block": 64, "wrong": True}, {"block": 128}]


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    """Each test its own cache folder (the process's libtile keeps one per target, so the
    records are told apart by their keys: each test tunes its own problem size)."""
    folder = tmp_path / "cache"
    folder.mkdir(mode=stat.S_IRWXU)
    monkeypatch.setenv("TILE_CACHE_DIR", str(folder))


def test_a_wrong_candidate_is_refused_and_the_choice_is_stored():
    tuner = AutoTuner.from_kernel(kernel=lambda **kw: scale_factory(1000, **kw),
                                  configs=CONFIGS)
    tuner.set_compile_args(out_idx=[-1], target="cpu")
    tuner.set_profile_args(ref_prog=ref, warmup=1, rep=3)
    result = tuner.run()
    assert result.config in (CONFIGS[0], CONFIGS[2])
    refused = [c for c in result.report.candidates if c.error is not None]
    assert [c.config for c in refused] == [CONFIGS[1]]
    assert "and ref_prog differ at" in refused[0].error
    x = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
    np.testing.assert_allclose(result.kernel(x), x * 2.0, rtol=1e-6)
    assert not result.report.from_cache
    again = AutoTuner.from_kernel(kernel=lambda **kw: scale_factory(1000, **kw),
                                  configs=CONFIGS).set_compile_args(out_idx=[-1], target="cpu")
    again.set_profile_args(ref_prog=ref, warmup=1, rep=3)
    second = again.run()
    # The record is read back from the cache (unless this process runs without one).
    if not os.environ.get("TILE_DISABLE_CACHE"):
        assert second.report.from_cache and second.config == result.config
    assert "refused" in second.report.explain()


def test_decorator_above_jit_tunes_once_per_arguments():
    @autotune(configs=CONFIGS, ref_prog=ref, warmup=1, rep=3)
    @tilelang.jit(out_idx=[-1], target="cpu")
    def scale(N, block=None, wrong=False):
        return scale_factory(N, block, wrong)

    kernel = scale(777)
    assert scale(777) is kernel
    assert kernel.config != CONFIGS[1]
    x = np.ones(777, np.float32)
    assert (kernel(x) == 2.0).all()
    assert "refused" in kernel.autotune_report.explain()


def test_unknown_config_keys_and_no_passing_candidate_are_errors():
    with pytest.raises(TypeError, match="names 'blok', which is not a parameter"):
        AutoTuner.from_kernel(kernel=scale_factory, configs=[{"blok": 1}]).run(args=(64,))
    tuner = AutoTuner.from_kernel(kernel=scale_factory, configs=[{"block": 32, "wrong": True}])
    tuner.set_compile_args(out_idx=[-1], target="cpu").set_profile_args(ref_prog=ref, rep=1)
    with pytest.raises(tilelang.TileError, match="no candidate passed"):
        tuner.run(args=(555,))


def test_every_tunable_argument_given_skips_tuning():
    @autotune(configs=CONFIGS, ref_prog=ref)
    @tilelang.jit(out_idx=[-1], target="cpu")
    def scale(N, block=None, wrong=False):
        return scale_factory(N, block, wrong)

    kernel = scale(333, block=64, wrong=False)
    assert not hasattr(kernel, "autotune_report")
    assert (kernel(np.ones(333, np.float32)) == 2.0).all()


def test_eager_functions_tune_on_the_calls_tensors_and_compile_by_name():
    # TileLang's topk and Mamba examples: @autotune above an eager @jit (T.const sizes,
    # T.empty outputs); a call tunes on its own tensors and returns the outputs, .compile()
    # returns the kernel, and a call that gives every config key is not tuned.
    @autotune(configs=[{"block": 32}, {"block": 64, "wrong": True}, {"block": 128}],
              warmup=1, rep=2, ref_prog=lambda X: X.astype(np.float64) * 2.0)
    @tilelang.jit(target="cpu")
    def double(X, block=64, wrong=False):
        N = T.const("N")
        X: T.Tensor((N,), T.float32)
        Y = T.empty((N,), T.float32)
        with T.Kernel(T.ceildiv(N, block), threads=32) as bx:
            for i in T.Parallel(block):
                if bx * block + i < N:
                    Y[bx * block + i] = X[bx * block + i] * (3.0 if wrong else 2.0)
        return Y

    x = np.random.default_rng(1).standard_normal(300).astype(np.float32)
    np.testing.assert_allclose(double(x), x * 2.0, rtol=1e-6)
    tuned = double.compile(x)
    assert tuned.config in ({"block": 32}, {"block": 128})
    assert tuned.ref_latency is None and "refused" in tuned.autotune_report.explain()
    named = double.compile(N=300, block=64, wrong=False)  # every config key given: no tuning
    assert not hasattr(named, "autotune_report")
    np.testing.assert_allclose(named(x), x * 2.0, rtol=1e-6)
    tuned_sizes = double.compile(N=500)  # sizes by name, inputs generated
    np.testing.assert_allclose(tuned_sizes(x[:1].repeat(500)), np.full(500, x[0] * 2.0),
                               rtol=1e-6)
