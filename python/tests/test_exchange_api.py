"""The C call path on tensors of a framework that publishes DLPack 1.2's C
exchange table (as torch.Tensor does): a producer written here with ctypes over
numpy arrays stands in for the framework, so the path is checked without one."""

import ctypes
import os

import numpy as np
import pytest

import tile
from tile import _dlpack, _lib

KERNEL = os.path.join(os.environ.get("TEST_SRCDIR_ROOT", "."), "capi/testdata/scale_add.tile")

pytestmark = pytest.mark.skipif(_lib.launch_extension is None,
                                reason="tile._launch was not built")


class Version(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class ManagedVersioned(ctypes.Structure):
    pass


ManagedVersioned._fields_ = [
    ("version", Version),
    ("manager_ctx", ctypes.c_void_p),
    ("deleter", ctypes.CFUNCTYPE(None, ctypes.POINTER(ManagedVersioned))),
    ("flags", ctypes.c_uint64),
    ("dl_tensor", _dlpack.DLTensor),
]

DLTensorFrom = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(_dlpack.DLTensor))
ManagedFrom = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.py_object,
                               ctypes.POINTER(ctypes.POINTER(ManagedVersioned)))
CurrentStream = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_int32,
                                 ctypes.POINTER(ctypes.c_void_p))


class ExchangeAPI(ctypes.Structure):
    _fields_ = [
        ("version", Version),
        ("prev_api", ctypes.c_void_p),
        ("managed_tensor_allocator", ctypes.c_void_p),
        ("managed_tensor_from_py_object_no_sync", ManagedFrom),
        ("managed_tensor_to_py_object_no_sync", ctypes.c_void_p),
        ("dltensor_from_py_object_no_sync", DLTensorFrom),
        ("current_work_stream", CurrentStream),
    ]


_new_capsule = ctypes.pythonapi.PyCapsule_New
_new_capsule.restype = ctypes.py_object
_new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_CAPSULE_NAME = ctypes.create_string_buffer(b"dlpack_exchange_api")


def dl_tensor_of(wrapper):
    """A copy of the wrapped array's DLTensor (its shape and strides stay the array's capsule's,
    which the wrapper keeps)."""
    wrapper.capsule = wrapper.array.__dlpack__()
    address = _dlpack._get_pointer(wrapper.capsule, b"dltensor")
    tensor = ctypes.cast(address, ctypes.POINTER(_dlpack.DLManagedTensor)).contents.dl_tensor
    if wrapper.claims_cuda:
        tensor.device.device_type = 2  # kDLCUDA
    return tensor


class Log:
    streams_asked = []
    deleted = []


def _dltensor_from(obj, out):
    out[0] = dl_tensor_of(obj)
    return 0


_managed_keep = []


@ctypes.CFUNCTYPE(None, ctypes.POINTER(ManagedVersioned))
def _delete_managed(managed):
    Log.deleted.append(ctypes.addressof(managed.contents))


def _managed_from(obj, out):
    managed = ManagedVersioned()
    managed.version = Version(1, 2)
    managed.deleter = _delete_managed
    managed.dl_tensor = dl_tensor_of(obj)
    _managed_keep.append(managed)
    out[0] = ctypes.pointer(managed)
    return 0


def _current_stream(device_type, device_id, out):
    Log.streams_asked.append((device_type, device_id))
    out[0] = None
    return 0


_CALLBACKS = (DLTensorFrom(_dltensor_from), ManagedFrom(_managed_from),
              CurrentStream(_current_stream))


def exchange_type(with_dltensor_function):
    """A tensor type whose class attribute holds an exchange table, as torch.Tensor's does."""
    table = ExchangeAPI()
    table.version = Version(1, 2)
    table.managed_tensor_from_py_object_no_sync = _CALLBACKS[1]
    if with_dltensor_function:
        table.dltensor_from_py_object_no_sync = _CALLBACKS[0]
    table.current_work_stream = _CALLBACKS[2]

    class Exchanged:
        _table = table  # alive as long as the type
        __dlpack_c_exchange_api__ = _new_capsule(ctypes.addressof(table), _CAPSULE_NAME, None)

        def __init__(self, array, claims_cuda=False):
            self.array = array
            self.claims_cuda = claims_cuda
            self.capsule = None

        def __dlpack__(self, stream=None):
            raise AssertionError("the C path must not ask for a capsule")

    return Exchanged


@pytest.fixture(scope="module")
def kernel():
    compiled = tile.compile(tile.load(KERNEL), kernel="scale_add", target="cpu")
    assert compiled.call_path == "c"
    return compiled


def arrays(n):
    x = np.linspace(-3, 3, n).astype(np.float32)
    y = (np.arange(n) % 7 * 0.25).astype(np.float32)
    return x, y, np.full(n, np.nan, np.float32)


@pytest.mark.parametrize("with_dltensor_function", [True, False])
def test_tensors_read_through_the_exchange_table(kernel, with_dltensor_function):
    Exchanged = exchange_type(with_dltensor_function)
    assert _lib.launch_extension.has_exchange_api(Exchanged(np.zeros(1)))
    x, y, z = arrays(1000)
    Log.deleted.clear()
    kernel(Exchanged(x), Exchanged(y), 1.5, Exchanged(z))
    np.testing.assert_allclose(z, 1.5 * x.astype(np.float64) + y, rtol=1e-6, atol=1e-6)
    # A managed tensor is released after the launch; a DLTensor needs no release.
    assert len(Log.deleted) == (0 if with_dltensor_function else 3)


def test_a_cuda_tensor_asks_its_framework_for_the_stream(kernel):
    Exchanged = exchange_type(True)
    x, y, z = arrays(100)
    Log.streams_asked.clear()
    with pytest.raises(tile.InvalidArgumentError,
                       match=r"'X'\): expected a tensor on cpu, got one on cuda"):
        kernel(Exchanged(x, claims_cuda=True), Exchanged(y), 1.0, Exchanged(z))
    assert Log.streams_asked == [(2, 0)]


def test_objects_without_a_table_take_dlpack_capsules(kernel):
    assert not _lib.launch_extension.has_exchange_api(np.zeros(1))
    x, y, z = arrays(100)
    kernel(x, y, 2.0, z)
    np.testing.assert_allclose(z, 2.0 * x + y, rtol=1e-6)
