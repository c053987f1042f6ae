"""The tile package on numpy arrays on the CPU target: a run against numpy's
answer, the same errors as the C API's as exceptions, and the kernel cache."""

import os

import numpy as np
import pytest

import tile

KERNEL = os.path.join(os.environ.get("TEST_SRCDIR_ROOT", "."), "capi/testdata/scale_add.tile")
JSON = os.path.join(os.environ.get("TEST_SRCDIR_ROOT", "."), "docs/examples/scale_add.json")


LAUNCH_EXTENSION = os.path.join(os.environ.get("TEST_SRCDIR_ROOT", "."), "python/_launch.abi3.so")


# Every test below runs on both call paths: the C one (tile._launch, built for this test) and
# the ctypes one it falls back to; their results and messages are the same.
@pytest.fixture(scope="module", params=["c", "ctypes"])
def kernel(request):
    compiled = tile.compile(tile.load(KERNEL), kernel="scale_add", target="cpu")
    if request.param == "ctypes":
        compiled._launcher = None
    assert compiled.call_path == request.param
    return compiled


def test_the_c_call_path_is_loaded_where_it_was_built():
    assert os.path.exists(LAUNCH_EXTENSION), LAUNCH_EXTENSION
    compiled = tile.compile(tile.load(KERNEL), kernel="scale_add", target="cpu")
    assert compiled.call_path == "c"
    # A call with every argument in order is KernelBase's C call, with no Python frame.
    assert type(compiled).__call__ is tile._lib.launch_extension.KernelBase.__call__
    x, y, z = arrays(10)
    compiled(x, y, 2.0, z)
    np.testing.assert_allclose(z, x * 2.0 + y, rtol=1e-6)


def arrays(n=100, dtype=np.float32):
    x = (np.arange(n, dtype=np.float64) / 8 - 3).astype(dtype)
    y = (np.arange(n, dtype=np.float64) % 7 * 0.25).astype(dtype)
    return x, y, np.full(n, np.nan, dtype=dtype)


def test_runs_on_numpy_arrays_and_matches_numpy(kernel):
    x, y, z = arrays()
    kernel(x, y, 1.5, z)
    np.testing.assert_allclose(z, 1.5 * x.astype(np.float64) + y, rtol=1e-6, atol=1e-6)


def test_scalars_and_tensors_by_name(kernel):
    x, y, z = arrays(65)
    kernel(x, y, Z=z, alpha=-2.0)
    np.testing.assert_allclose(z, -2.0 * x + y, rtol=1e-6)


def test_describes_itself(kernel):
    assert kernel.signature == "scale_add<N: i32>(X: f32[N], Y: f32[N], alpha: f32, Z: f32[N])"
    assert kernel.params == ["X", "Y", "alpha", "Z"]
    assert "Z_l[i] = alpha * X_l[i] + Y_l[i];" in kernel.ir()


def test_a_second_compile_comes_from_the_cache():
    again = tile.compile(tile.load(KERNEL), target="cpu")
    assert again.cache_info.startswith("cache: memory") or again.cache_info.startswith(
        "cache: disk"), again.cache_info


def test_loads_text_and_json(kernel):
    with open(KERNEL) as f:
        from_text = tile.load(f.read(), name="mine.tile")
    assert from_text.kernels == ["scale_add"]
    from_json = tile.load(JSON)
    x, y, z = arrays(100)
    tile.compile(from_json)(x, y, 0.5, z)
    np.testing.assert_allclose(z, 0.5 * x + y, rtol=1e-6)


def test_wrong_dtype(kernel):
    x, y, z = arrays(dtype=np.float64)
    with pytest.raises(tile.InvalidArgumentError, match=r"argument 1 \('X'\): expected f32, got f64"):
        kernel(x, y, 1.0, z)


def test_wrong_shape(kernel):
    x, _, z = arrays(100)
    y = np.zeros(99, dtype=np.float32)
    with pytest.raises(tile.InvalidArgumentError,
                       match=r"parameter 'Y' dimension 0 is 99 but N = 100 from parameter 'X'"):
        kernel(x, y, 1.0, z)


def test_wrong_rank(kernel):
    x, y, z = arrays(100)
    with pytest.raises(tile.InvalidArgumentError, match=r"'X'\): expected rank 1 \(f32\[N\]\)"):
        kernel(x.reshape(10, 10), y, 1.0, z)


def test_non_contiguous(kernel):
    x, y, z = arrays(100)
    with pytest.raises(tile.InvalidArgumentError, match=r"'X'\): the tensor is not dense row-major"):
        kernel(x[::2], y[:50], 1.0, z[:50])


class OnAnotherDevice:
    """A numpy array claiming, through DLPack, to live on a CUDA GPU."""

    def __init__(self, array):
        self.array = array
        self.capsule = None

    def __dlpack__(self, stream=None):
        import ctypes
        from tile import _dlpack
        capsule = self.array.__dlpack__()
        address = _dlpack._get_pointer(capsule, b"dltensor")
        managed = ctypes.cast(address, ctypes.POINTER(_dlpack.DLManagedTensor))
        managed.contents.dl_tensor.device.device_type = 2  # kDLCUDA
        return capsule


def test_device_mismatch(kernel):
    x, y, z = arrays(100)
    with pytest.raises(tile.InvalidArgumentError,
                       match=r"'X'\): expected a tensor on cpu, got one on cuda"):
        kernel(OnAnotherDevice(x), y, 1.0, z)


def test_kernel_that_does_not_exist():
    with pytest.raises(tile.NotFoundError, match=r"no kernel named 'scale_mul'"):
        tile.compile(tile.load(KERNEL), kernel="scale_mul")


def test_target_that_does_not_exist():
    with pytest.raises(tile.NotFoundError, match=r"target 'tpu'"):
        tile.compile(tile.load(KERNEL), target="tpu")


def test_malformed_module():
    with pytest.raises(tile.InvalidArgumentError, match=r"broken.tile:3:"):
        tile.load('ir_version 1;\nproducer "p" "1";\nkernel k(X: f32[4]) grid(bx: 1) {\n',
                  name="broken.tile")


def test_missing_file():
    with pytest.raises(tile.NotFoundError, match=r"absent.tile"):
        tile.load("absent.tile")


def test_argument_count_and_kinds(kernel):
    x, y, z = arrays(100)
    with pytest.raises(TypeError, match=r"no value for parameter 'Z'"):
        kernel(x, y, 1.0)
    with pytest.raises(TypeError, match=r"has no parameter 'W'"):
        kernel(x, y, 1.0, z, W=1)
    with pytest.raises(TypeError, match=r"argument 1 \('X'\): expected a tensor with __dlpack__ "
                                        r"\(numpy, torch, cupy, jax\), got list$"):
        kernel([1.0] * 100, y, 1.0, z)
    with pytest.raises(TypeError, match=r"argument 3 \('alpha'\): expected a number, got str$"):
        kernel(x, y, "1.0", z)


def test_read_only_output_is_refused(kernel):
    x, y, z = arrays(100)
    z.flags.writeable = False
    with pytest.raises(ValueError, match=r"argument 4 \('Z'\): the tensor cannot be shared"):
        kernel(x, y, 1.0, z)
