"""The Python package's call path under atheris (issue 37): tile.load and tile.compile of small
kernels, then calls through both call paths (tile._launch in C, ctypes) with fuzzed arguments:
numpy arrays of random dtypes, shapes and strides, numbers of every kind (huge integers,
non-finite floats, bools, fractions), None and other objects, and objects whose __dlpack__
misbehaves or forges a DLTensor's fields. Each call must return or raise TypeError, ValueError
or a tile.TileError (LookupError for names); anything else, or a crash, is a finding.

    python3 fuzz/python_call_fuzzer.py [atheris/libFuzzer flags] [corpus...]

with TILE_LIBRARY and TILE_LAUNCH_EXTENSION naming the builds (scripts/fuzz.sh sets them)."""

import ctypes
import fractions
import sys

import atheris
import numpy as np

with atheris.instrument_imports():
    import tile
    from tile import _dlpack

MODULE = """ir_version 3;
producer "fuzz" "1";

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

kernel fill<N: i32>(value: i64, small: i8, Z: i64[N]) grid(bx: 1) threads(64) {
  alloc Z_l: fragment i64[64];
  for i in 0 +: 64 parallel {
    Z_l[i] = value + cast<i64>(small);
  }
  copy Z_l -> Z[0 +: 64];
}

kernel strided<M: i32, N: i32, ld: i64>(A: f16[M, N] strides[ld, 1], s: f64)
    grid(bx: M) threads(1) {
}
"""

DTYPES = [np.float32, np.float64, np.float16, np.int8, np.int32, np.int64, np.uint8, np.bool_,
          np.complex64, np.uint16]
EXTENTS = [0, 1, 2, 3, 63, 64, 65, 100, 128]
BUFFER_BYTES = 1 << 16
ALLOWED = (TypeError, ValueError, LookupError, tile.TileError)


class Bogus(Exception):
    """What a misbehaving __dlpack__ raises; the call may pass it on."""


class Misbehaving:
    """__dlpack__ that raises, returns something other than a capsule, or is not callable."""

    def __init__(self, how):
        self.how = how

    def __dlpack__(self, stream=None):
        if self.how == 0:
            raise Bogus("no")
        if self.how == 1:
            return 42
        if self.how == 2:
            raise BufferError("not shareable")
        new = ctypes.pythonapi.PyCapsule_New
        new.restype = ctypes.py_object
        new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        self.buffer = ctypes.create_string_buffer(64)
        return new(ctypes.addressof(self.buffer), b"not_dltensor", None)


class Forged:
    """A DLManagedTensor with fuzzed fields. Its data is a real buffer whenever the fields are
    consistent and their byte span fits it, else NULL: a tensor that lies about its size is the
    caller's bug, not one libtile can see."""

    def __init__(self, fdp):
        self.buffer = np.zeros(BUFFER_BYTES // 8, np.float64)
        ndim = fdp.PickValueInList([-1, 0, 1, 2, 3, 64, 65, -2**31, 2**31 - 1, 1, 1, 2])
        entries = ndim if 0 < ndim <= 64 else (1 if ndim > 0 else 0)
        edges = [0, 1, 2, 64, 100, -1, 2**31, 2**62, 2**63 - 1, -2**63]
        shape = [fdp.PickValueInList(edges) if fdp.ConsumeBool() else fdp.ConsumeIntInRange(0, 70)
                 for _ in range(entries)]
        strides = ([fdp.PickValueInList(edges) for _ in range(entries)]
                   if fdp.ConsumeBool() else None)
        self.shape = (ctypes.c_int64 * max(1, entries))(*shape)
        self.strides = None if strides is None else (ctypes.c_int64 * max(1, entries))(*strides)
        code, bits = fdp.PickValueInList([(2, 32), (2, 16), (0, 64), (0, 8), (1, 8), (2, 64)])
        lanes = fdp.PickValueInList([1, 1, 1, 0, 4, 65535])
        offset = fdp.PickValueInList([0, 0, 8, 2, 2**63, 2**64 - 8])
        self.managed = _dlpack.DLManagedTensor()
        t = self.managed.dl_tensor
        t.device = _dlpack.DLDevice(fdp.PickValueInList([1, 1, 1, 2, 16, -1]), 0)
        t.ndim = ndim
        t.dtype = _dlpack.DLDataType(code, bits, lanes)
        null_shape = ndim > 0 and fdp.ConsumeIntInRange(0, 7) == 0
        t.shape = None if null_shape else ctypes.cast(self.shape, ctypes.POINTER(ctypes.c_int64))
        t.strides = (None if self.strides is None else
                     ctypes.cast(self.strides, ctypes.POINTER(ctypes.c_int64)))
        t.byte_offset = offset
        honest = 0 <= ndim <= 64 and not null_shape and all(e >= 0 for e in shape)
        if honest and all(e > 0 for e in shape):
            element = max(1, (bits * max(lanes, 1) + 7) // 8)
            steps = strides if strides is not None else [
                int(np.prod(shape[d + 1:], dtype=object)) for d in range(entries)]
            span = (sum(abs(s) * (e - 1) for s, e in zip(steps, shape)) + 1) * element
            honest = span + offset <= BUFFER_BYTES
        t.data = self.buffer.ctypes.data if honest else None

    def __dlpack__(self, stream=None):
        new = ctypes.pythonapi.PyCapsule_New
        new.restype = ctypes.py_object
        new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(ctypes.addressof(self.managed), b"dltensor", None)


def draw_array(fdp):
    dtype = fdp.PickValueInList(DTYPES)
    shape = [fdp.PickValueInList(EXTENTS) for _ in range(fdp.ConsumeIntInRange(0, 3))]
    array = np.zeros(shape, dtype)
    how = fdp.ConsumeIntInRange(0, 5)
    if how == 1 and array.ndim > 0:
        array = array[::fdp.ConsumeIntInRange(1, 3)]
    elif how == 2:
        array = array.T
    elif how == 3:
        array.flags.writeable = False
    elif how == 4 and array.ndim > 0:
        array = array[..., ::-1]
    return array


def draw_number(fdp):
    how = fdp.ConsumeIntInRange(0, 9)
    if how == 0:
        return fdp.ConsumeInt(fdp.ConsumeIntInRange(1, 80))
    if how == 1:
        return fdp.ConsumeRegularFloat() if fdp.ConsumeBool() else fdp.ConsumeFloat()
    if how == 2:
        return fdp.ConsumeBool()
    if how == 3:
        return fractions.Fraction(fdp.ConsumeInt(64), fdp.ConsumeIntInRange(1, 7))
    if how == 4:
        return np.int64(fdp.ConsumeIntInRange(-2**63, 2**63 - 1))
    if how == 5:
        return np.float16(fdp.ConsumeFloat())
    if how == 6:
        return 10**fdp.ConsumeIntInRange(18, 5000) * fdp.PickValueInList([1, -1])
    if how == 7:
        return fdp.ConsumeIntInRange(-2**63, 2**63 - 1)
    return fdp.PickValueInList([None, "1.0", b"x", [1.0], object(), complex(1, 2)])


def draw_arg(fdp):
    how = fdp.ConsumeIntInRange(0, 9)
    if how <= 3:
        return draw_array(fdp)
    if how <= 6:
        return draw_number(fdp)
    if how <= 8:
        return Forged(fdp)
    return Misbehaving(fdp.ConsumeIntInRange(0, 3))


MODULE_HANDLE = tile.load(MODULE, name="fuzz.tile")
KERNELS = []
for name in ("scale_add", "fill", "strided"):
    for path in ("c", "ctypes"):
        kernel = tile.compile(MODULE_HANDLE, kernel=name, target="cpu")
        if path == "ctypes":
            kernel._launcher = None
        KERNELS.append(kernel)


def TestOneInput(data):  # pylint: disable=invalid-name
    fdp = atheris.FuzzedDataProvider(data)
    kernel = fdp.PickValueInList(KERNELS)
    count = len(kernel.params) + fdp.PickValueInList([0, 0, 0, 0, -1, 1])
    args = [draw_arg(fdp) for _ in range(max(0, count))]
    try:
        if fdp.ConsumeBool() or count != len(kernel.params):
            kernel(*args)
        else:
            kernel(**dict(zip(kernel.params, args)))
    except ALLOWED:
        pass
    except Bogus:
        pass


if __name__ == "__main__":
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()
