"""Launch arguments through both call paths (issue 37): integer scalars exact, numbers too large
refused naming the argument, malformed DLPack tensors refused naming the field, a released
kernel, an empty path, and the GIL released while a CPU kernel runs."""

import ctypes
import fractions
import threading
import time

import numpy as np
import pytest

import tile
from tile import _dlpack

FILL = """ir_version 3;
producer "test" "1";

kernel fill<N: i32>(value: i64, small: i8, Z: i64[N]) grid(bx: 1) threads(64) {
  alloc Z_l: fragment i64[64];
  for i in 0 +: 64 parallel {
    Z_l[i] = value + cast<i64>(small);
  }
  copy Z_l -> Z[0 +: 64];
}

kernel scale<N: i32>(X: f32[N], alpha: f32) grid(bx: ceildiv(N, 64)) threads(64) {
  alloc X_l: fragment f32[64];
  copy X[bx * 64 +: 64] -> X_l;
  for i in 0 +: 64 parallel {
    X_l[i] = alpha * X_l[i];
  }
  copy X_l -> X[bx * 64 +: 64];
}

kernel spin<N: i32>(X: f32[N], iters: i32) grid(bx: 1) threads(64) {
  alloc X_l: fragment f32[64];
  copy X[0 +: 64] -> X_l;
  for k in 0 +: iters serial {
    for i in 0 +: 64 parallel {
      X_l[i] = X_l[i] * 0.5 + 1.0;
    }
  }
  copy X_l -> X[0 +: 64];
}
"""


def compiled(name, path):
    kernel = tile.compile(tile.load(FILL, name="fill.tile"), kernel=name, target="cpu")
    if path == "ctypes":
        kernel._launcher = None
    assert kernel.call_path == path
    return kernel


@pytest.fixture(params=["c", "ctypes"])
def path(request):
    return request.param


def test_integer_scalars_are_exact(path):
    fill = compiled("fill", path)
    z = np.zeros(64, np.int64)
    fill(2**53 + 1, 0, z)
    assert z[0] == 2**53 + 1 and z[63] == 2**53 + 1
    fill(-2**63, 0, z)
    assert z[0] == -2**63
    fill(np.int64(2**62 + 1), np.int8(-3), z)
    assert z[0] == 2**62 - 2
    fill(True, False, z)  # bools are integers, 1 and 0
    assert z[0] == 1
    fill(value=2**63 - 1, small=0, Z=z)
    assert z[0] == 2**63 - 1


def test_integers_out_of_range_name_the_argument(path):
    fill = compiled("fill", path)
    z = np.zeros(64, np.int64)
    with pytest.raises(tile.InvalidArgumentError,
                       match=r"argument 2 \('small'\): 128 is out of range for i8 \[-128, 127\]"):
        fill(0, 128, z)
    with pytest.raises(tile.InvalidArgumentError,
                       match=r"argument 1 \('value'\): 9223372036854775808 is out of the range of "
                       r"an integer scalar, int64 \[-9223372036854775808, 9223372036854775807\]"):
        fill(2**63, 0, z)
    with pytest.raises(tile.InvalidArgumentError,
                       match=r"argument 1 \('value'\): an integer of 1329 bits is out of the range"):
        fill(10**400, 0, z)
    with pytest.raises(tile.InvalidArgumentError,
                       match=r"argument 2 \('small'\): an integer of 3321929 bits"):
        fill(0, 10**1000000, z)


def test_float_parameters_take_integers_and_refuse_what_a_double_cannot_hold(path):
    scale = compiled("scale", path)
    x = np.ones(64, np.float32)
    scale(x, 3)
    assert x[0] == 3.0
    scale(x, 2**60 + 1)  # the nearest f32
    assert x[0] == np.float32(3 * 2.0**60)
    with pytest.raises(tile.InvalidArgumentError,
                       match=r"argument 2 \('alpha'\): the number is too large for a double"):
        scale(x, fractions.Fraction(10**400, 3))
    with pytest.raises(TypeError, match=r"argument 2 \('alpha'\): expected a number, got NoneType"):
        scale(x, None)


def test_a_released_kernel_says_so(path):
    scale = compiled("scale", path)
    scale.release()
    for use in (scale.ir, lambda: scale.cache_info, lambda: scale(np.ones(64, np.float32), 1.0)):
        with pytest.raises(ValueError, match=r"kernel 'scale' was released"):
            use()
    scale.release()  # twice is harmless
    module = tile.load(FILL, name="fill.tile")
    module.release()
    with pytest.raises(ValueError, match=r"module fill.tile was released"):
        tile.compile(module, kernel="fill")


def test_an_empty_path_is_named():
    with pytest.raises(ValueError, match=r"tile.load: an empty path was given"):
        tile.load("")


class Forged:
    """An object whose __dlpack__ gives a DLManagedTensor with the fields given."""

    def __init__(self, ndim, shape=None, strides=None, data=None, dtype=(2, 32, 1),
                 byte_offset=0):
        self.data = np.zeros(64, np.float32) if data is None else data
        self.shape = None if shape is None else (ctypes.c_int64 * len(shape))(*shape)
        self.strides = None if strides is None else (ctypes.c_int64 * len(strides))(*strides)
        self.managed = _dlpack.DLManagedTensor()
        t = self.managed.dl_tensor
        t.data = self.data.ctypes.data if isinstance(self.data, np.ndarray) else self.data
        t.device = _dlpack.DLDevice(1, 0)
        t.ndim = ndim
        t.dtype = _dlpack.DLDataType(*dtype)
        t.shape = ctypes.cast(self.shape, ctypes.POINTER(ctypes.c_int64)) if shape else None
        t.strides = ctypes.cast(self.strides, ctypes.POINTER(ctypes.c_int64)) if strides else None
        t.byte_offset = byte_offset

    def __dlpack__(self, stream=None):
        new = ctypes.pythonapi.PyCapsule_New
        new.restype = ctypes.py_object
        new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(ctypes.addressof(self.managed), b"dltensor", None)


@pytest.mark.parametrize("forged, message", [
    (Forged(-1, [64]), r"argument 1 \('X'\): the tensor's ndim is -1"),
    (Forged(1 << 30, [64]), r"argument 1 \('X'\): the tensor's ndim is 1073741824, more than"),
    (Forged(1), r"argument 1 \('X'\): the tensor's shape is NULL with ndim 1"),
    (Forged(1, [-64]), r"argument 1 \('X'\): dimension 0 is negative \(-64\)"),
    (Forged(1, [64], data=0), r"argument 1 \('X'\): the tensor's data is NULL"),
    (Forged(1, [64], dtype=(2, 32, 0)), r"argument 1 \('X'\): expected f32, got"),
    (Forged(1, [64], byte_offset=2**64 - 4),
     r"argument 1 \('X'\): the tensor's byte_offset 18446744073709551612"),
    (Forged(1, [2**62]), r"argument 1 \('X'\): the tensor's size"),
])
def test_malformed_dlpack_tensors_are_refused(path, forged, message):
    scale = compiled("scale", path)
    with pytest.raises(tile.InvalidArgumentError, match=r"kernel 'scale': " + message):
        scale(forged, 1.0)


def test_other_threads_run_while_a_cpu_kernel_does(path):
    spin = compiled("spin", path)
    x = np.ones(64, np.float32)
    iters = 1000
    while True:  # enough iterations for a launch of at least 0.3 s on this machine
        start = time.monotonic()
        spin(x, iters)
        took = time.monotonic() - start
        if took >= 0.3 or iters >= 2**30:
            break
        iters = min(2**30, int(iters * max(2.0, 0.4 / max(took, 1e-4))))
    beats, stop = [], threading.Event()

    def beat():
        while not stop.is_set():
            beats.append(time.monotonic())
            time.sleep(0.001)

    thread = threading.Thread(target=beat)
    thread.start()
    time.sleep(0.05)
    start = time.monotonic()
    spin(x, iters)
    end = time.monotonic()
    stop.set()
    thread.join()
    during = [t for t in beats if start <= t <= end]
    gaps = np.diff([start] + during + [end])
    # Holding the GIL, the thread would not beat once during the launch: one gap of all of it.
    assert gaps.max() < 0.5 * (end - start), (gaps.max(), end - start, len(during))
