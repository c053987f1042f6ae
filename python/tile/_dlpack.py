"""DLPack's structs (DLPack 0.6 to 1.x agree on them) and borrowing a
DLTensor from any object with __dlpack__ (numpy, torch, cupy, jax)."""

import ctypes


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    pass


DLManagedTensor._fields_ = [
    ("dl_tensor", DLTensor),
    ("manager_ctx", ctypes.c_void_p),
    ("deleter", ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))),
]

_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_is_valid = ctypes.pythonapi.PyCapsule_IsValid
_is_valid.restype = ctypes.c_int
_is_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]


class Borrowed:
    """A DLTensor viewing `obj` for the length of one call. The capsule is
    not consumed (its name stays 'dltensor'), so its own destructor calls the
    producer's deleter when it is collected, after the launch."""

    def __init__(self, obj, position, name):
        if not hasattr(obj, "__dlpack__"):
            raise TypeError(f"argument {position} ('{name}'): expected a tensor with "
                            f"__dlpack__ (numpy, torch, cupy, jax), got {type(obj).__name__}")
        try:
            self.capsule = obj.__dlpack__()
        except (BufferError, TypeError, RuntimeError) as error:
            raise ValueError(f"argument {position} ('{name}'): the tensor cannot be shared "
                             f"through DLPack: {error}") from error
        if not _is_valid(self.capsule, b"dltensor"):
            raise ValueError(f"argument {position} ('{name}'): __dlpack__ returned no "
                             "'dltensor' capsule")
        address = _get_pointer(self.capsule, b"dltensor")
        self.managed = ctypes.cast(address, ctypes.POINTER(DLManagedTensor))
        self.tensor = ctypes.pointer(self.managed.contents.dl_tensor)
