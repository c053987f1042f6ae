/* tile._launch: a compiled kernel's call from Python in C, so that a launch
 * costs little more than the driver's own (issue 15: a few microseconds with
 * three torch tensors). Built against Python's stable ABI (abi3, 3.10 and up),
 * so the one .so loads in Debian's 3.11 here and in 3.12 on the GPU machine;
 * it links nothing of ours: libtile's launch functions arrive as addresses
 * from the ctypes layer (_lib.py), which stays the fallback where this
 * module is absent.
 *
 * Tensors come in one of two ways. A type that publishes DLPack 1.2's C
 * exchange table (torch.Tensor does) is read through it with no capsule,
 * and the kernel is enqueued on the framework's current stream without
 * waiting, as the framework's own operators are. Anything else with
 * __dlpack__ (numpy, cupy, jax) gives a capsule, and the launch waits, as
 * tile_kernel_launch does: without the producer's stream we cannot order
 * the kernel after its work otherwise. The messages are those of the
 * ctypes path (kernel.py). */
#define Py_LIMITED_API 0x030A0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>

#include "capi/tile.h"
#include "python/tile/dlpack_exchange.h"

typedef tile_status (*LaunchFunction)(tile_kernel*, const tile_arg*, size_t);
typedef tile_status (*LaunchAsyncFunction)(tile_kernel*, const tile_arg*, size_t, void*);

static const char kLauncherName[] = "tile._launch.Launcher";

/* One compiled kernel's call: prepare() makes it once per tile.Kernel. */
typedef struct {
  tile_kernel* kernel;
  LaunchFunction launch;
  LaunchAsyncFunction launch_async;
  Py_ssize_t num_params;
  PyObject* names;  /* tuple of str, the parameters in order */
  char* is_buffer;  /* num_params flags */
} Launcher;

/* ------------------------------------------------------------------ */
/* The exchange table of each tensor type seen, looked up once per type. */

enum { kTypeCacheSize = 16 };
static struct {
  PyObject* type; /* a strong reference */
  const TileDLPackExchangeAPI* api; /* NULL: the type has none */
} type_cache[kTypeCacheSize];
static int type_cache_used = 0;

static const TileDLPackExchangeAPI* LookUpExchangeApi(PyObject* type) {
  static const char* const kNames[] = {"__dlpack_c_exchange_api__", "__c_dlpack_exchange_api__"};
  for (size_t i = 0; i < sizeof kNames / sizeof kNames[0]; ++i) {
    PyObject* attribute = PyObject_GetAttrString(type, kNames[i]);
    if (attribute == NULL) {
      PyErr_Clear();
      continue;
    }
    void* address = NULL;
    if (PyCapsule_IsValid(attribute, "dlpack_exchange_api")) {
      address = PyCapsule_GetPointer(attribute, "dlpack_exchange_api");
    } else if (PyLong_Check(attribute)) {
      address = PyLong_AsVoidPtr(attribute);
    }
    if (address == NULL) PyErr_Clear();
    /* The type keeps the table alive; the specification says it lives as long as the process. */
    Py_DECREF(attribute);
    const TileDLPackExchangeAPI* api = (const TileDLPackExchangeAPI*)address;
    if (api != NULL && api->header.version.major == TILE_DLPACK_EXCHANGE_MAJOR &&
        api->current_work_stream != NULL &&
        (api->dltensor_from_py_object_no_sync != NULL ||
         api->managed_tensor_from_py_object_no_sync != NULL)) {
      return api;
    }
  }
  return NULL;
}

static const TileDLPackExchangeAPI* ExchangeApiOf(PyObject* object) {
  PyObject* type = (PyObject*)Py_TYPE(object);
  for (int i = 0; i < type_cache_used; ++i) {
    if (type_cache[i].type == type) return type_cache[i].api;
  }
  const TileDLPackExchangeAPI* api = LookUpExchangeApi(type);
  if (type_cache_used < kTypeCacheSize) {
    Py_INCREF(type);
    type_cache[type_cache_used].type = type;
    type_cache[type_cache_used].api = api;
    ++type_cache_used;
  }
  return api;
}

/* ------------------------------------------------------------------ */
/* Errors in the ctypes path's words. */

static const char* ParamName(const Launcher* launcher, Py_ssize_t i) {
  PyObject* name = PyTuple_GetItem(launcher->names, i);
  const char* text = name ? PyUnicode_AsUTF8AndSize(name, NULL) : NULL;
  if (text == NULL) PyErr_Clear();
  return text ? text : "?";
}

/* The name of `object`'s type, as the ctypes path prints it (type(x).__name__): a new reference,
 * since a static type makes a new string for each ask; NULL (with no error set) if it has none. */
static PyObject* TypeName(PyObject* object) {
  PyObject* name = PyObject_GetAttrString((PyObject*)Py_TYPE(object), "__name__");
  if (name == NULL) PyErr_Clear();
  return name;
}

/* Raises `kind` with "argument N ('NAME'): expected WHAT, got TYPE". */
static void RaiseWrongKind(PyObject* kind, const Launcher* launcher, Py_ssize_t i,
                           const char* what, PyObject* value) {
  PyObject* type_name = TypeName(value);
  if (type_name != NULL) {
    PyErr_Format(kind, "argument %zd ('%s'): expected %s, got %U", i + 1, ParamName(launcher, i),
                 what, type_name);
  } else {
    PyErr_Format(kind, "argument %zd ('%s'): expected %s", i + 1, ParamName(launcher, i), what);
  }
  Py_XDECREF(type_name);
}

/* Replaces the pending exception with a ValueError naming the argument and quoting it. */
static void RaiseNotShareable(const Launcher* launcher, Py_ssize_t i) {
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  PyObject* text = value ? PyObject_Str(value) : NULL;
  const char* message = text ? PyUnicode_AsUTF8AndSize(text, NULL) : NULL;
  if (message == NULL) PyErr_Clear();
  PyErr_Format(PyExc_ValueError,
               "argument %zd ('%s'): the tensor cannot be shared through DLPack: %s", i + 1,
               ParamName(launcher, i), message ? message : "unknown error");
  Py_XDECREF(text);
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(traceback);
}

static int IsExceptionOf(PyObject* kinds[], size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (PyErr_ExceptionMatches(kinds[i])) return 1;
  }
  return 0;
}

/* ------------------------------------------------------------------ */
/* One call. */

enum { kInlineArgs = 16 };

typedef struct {
  tile_arg args[kInlineArgs];
  DLTensor tensors[kInlineArgs];
  PyObject* capsules[kInlineArgs];                     /* what __dlpack__ gave, released after */
  TileDLManagedTensorVersioned* managed[kInlineArgs];  /* from the exchange table */
} CallSlots;

static PyObject* numbers_real = NULL;     /* numbers.Real, what a scalar must be */
static PyObject* numbers_integral = NULL; /* numbers.Integral, what is passed exactly */

/* Fills slot i from a tensor argument. Returns 0, or -1 with an exception set. Sets *stream
 * from the first CUDA tensor read through an exchange table; clears *all_exchanged when the
 * tensor came through a capsule. */
static int BindTensor(const Launcher* launcher, Py_ssize_t i, PyObject* value, CallSlots* slots,
                      void** stream, int* have_stream, int* all_exchanged) {
  const TileDLPackExchangeAPI* api = ExchangeApiOf(value);
  DLTensor* tensor = NULL;
  if (api != NULL) {
    if (api->dltensor_from_py_object_no_sync != NULL) {
      if (api->dltensor_from_py_object_no_sync(value, &slots->tensors[i]) != 0) {
        RaiseNotShareable(launcher, i);
        return -1;
      }
      tensor = &slots->tensors[i];
    } else {
      if (api->managed_tensor_from_py_object_no_sync(value, &slots->managed[i]) != 0) {
        slots->managed[i] = NULL;
        RaiseNotShareable(launcher, i);
        return -1;
      }
      tensor = &slots->managed[i]->dl_tensor;
    }
    if (!*have_stream && tensor->device.device_type == kDLCUDA) {
      if (api->current_work_stream(tensor->device.device_type, tensor->device.device_id,
                                   stream) != 0) {
        RaiseNotShareable(launcher, i);
        return -1;
      }
      *have_stream = 1;
    }
  } else {
    *all_exchanged = 0;
    PyObject* method = PyObject_GetAttrString(value, "__dlpack__");
    if (method == NULL) {
      PyErr_Clear();
      RaiseWrongKind(PyExc_TypeError, launcher, i,
                     "a tensor with __dlpack__ (numpy, torch, cupy, jax)", value);
      return -1;
    }
    PyObject* capsule = PyObject_CallObject(method, NULL);
    Py_DECREF(method);
    if (capsule == NULL) {
      PyObject* shareable_errors[] = {PyExc_BufferError, PyExc_TypeError, PyExc_RuntimeError};
      if (IsExceptionOf(shareable_errors, 3)) RaiseNotShareable(launcher, i);
      return -1;
    }
    slots->capsules[i] = capsule;
    /* Not consumed: the capsule keeps its name, and its destructor calls the producer's
     * deleter once we release it after the launch. */
    if (!PyCapsule_IsValid(capsule, "dltensor")) {
      PyErr_Format(PyExc_ValueError,
                   "argument %zd ('%s'): __dlpack__ returned no 'dltensor' capsule", i + 1,
                   ParamName(launcher, i));
      return -1;
    }
    DLManagedTensor* managed = (DLManagedTensor*)PyCapsule_GetPointer(capsule, "dltensor");
    if (managed == NULL) return -1;
    tensor = &managed->dl_tensor;
  }
  slots->args[i].kind = TILE_ARG_TENSOR;
  slots->args[i].tensor = tensor;
  slots->args[i].scalar = 0.0;
  return 0;
}

/* Raises tile.InvalidArgumentError (a ValueError; ValueError itself where tile._lib cannot be
 * imported) with `message`, as libtile's range errors arrive. */
static void RaiseInvalidArgument(PyObject* message) {
  PyObject* kind = NULL;
  PyObject* lib = PyImport_ImportModule("tile._lib");
  if (lib != NULL) {
    kind = PyObject_GetAttrString(lib, "InvalidArgumentError");
    Py_DECREF(lib);
  }
  if (kind == NULL) PyErr_Clear();
  PyErr_SetObject(kind != NULL ? kind : PyExc_ValueError, message);
  Py_XDECREF(kind);
}

/* The ctypes path's message for an integer beyond int64 (kernel.py's _scalar_arg): the integer
 * itself up to 128 bits, else its size (Python refuses str() of more than 4300 digits). */
static void RaiseIntegerOutOfRange(const Launcher* launcher, Py_ssize_t i, PyObject* integer) {
  PyObject* text = NULL;
  PyObject* bits = PyObject_CallMethod(integer, "bit_length", NULL);
  long bit_length = bits != NULL ? PyLong_AsLong(bits) : -1;
  Py_XDECREF(bits);
  if (bit_length >= 0 && bit_length <= 128) {
    text = PyObject_Str(integer);
  } else if (bit_length > 128) {
    text = PyUnicode_FromFormat("an integer of %ld bits", bit_length);
  }
  if (text == NULL) {
    PyErr_Clear();
    text = PyUnicode_FromString("the integer");
  }
  PyObject* message = PyUnicode_FromFormat(
      "argument %zd ('%s'): %U is out of the range of an integer scalar, int64 "
      "[-9223372036854775808, 9223372036854775807] (a float parameter takes float(value))",
      i + 1, ParamName(launcher, i), text);
  Py_DECREF(text);
  if (message != NULL) {
    RaiseInvalidArgument(message);
    Py_DECREF(message);
  }
}

/* An integer (bool too, as 0 and 1; numpy's, through __index__) is passed exactly as
 * TILE_ARG_INT, any other real number as a double. */
static int BindScalar(const Launcher* launcher, Py_ssize_t i, PyObject* value, CallSlots* slots) {
  int is_integer = PyLong_Check(value);
  if (!is_integer && !PyFloat_Check(value)) {
    is_integer = PyObject_IsInstance(value, numbers_integral);
    if (is_integer < 0) return -1;
  }
  slots->args[i].tensor = NULL;
  if (is_integer) {
    PyObject* integer = PyNumber_Index(value);
    if (integer == NULL) return -1;
    int overflow = 0;
    long long number = PyLong_AsLongLongAndOverflow(integer, &overflow);
    if (overflow != 0) RaiseIntegerOutOfRange(launcher, i, integer);
    Py_DECREF(integer);
    if (overflow != 0 || (number == -1 && PyErr_Occurred())) return -1;
    slots->args[i].kind = TILE_ARG_INT;
    slots->args[i].integer = (int64_t)number;
    return 0;
  }
  int is_number = PyFloat_Check(value);
  if (!is_number) {
    is_number = PyObject_IsInstance(value, numbers_real);
    if (is_number < 0) return -1;
  }
  if (!is_number) {
    RaiseWrongKind(PyExc_TypeError, launcher, i, "a number", value);
    return -1;
  }
  double number = PyFloat_AsDouble(value);
  if (number == -1.0 && PyErr_Occurred()) {
    if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
    PyErr_Clear();
    PyObject* message = PyUnicode_FromFormat(
        "argument %zd ('%s'): the number is too large for a double", i + 1, ParamName(launcher, i));
    if (message != NULL) {
      RaiseInvalidArgument(message);
      Py_DECREF(message);
    }
    return -1;
  }
  slots->args[i].kind = TILE_ARG_SCALAR;
  slots->args[i].scalar = number;
  return 0;
}

static void Release(CallSlots* slots, Py_ssize_t count) {
  for (Py_ssize_t i = 0; i < count; ++i) {
    Py_XDECREF(slots->capsules[i]);
    if (slots->managed[i] != NULL && slots->managed[i]->deleter != NULL) {
      slots->managed[i]->deleter(slots->managed[i]);
    }
  }
}

/* Binds `values` (a tuple of launcher->num_params) and launches: 0 with *status set, or -1
 * with a Python exception for arguments that are not tensors or numbers. */
static int LaunchValues(const Launcher* launcher, PyObject* values, tile_status* status) {
  Py_ssize_t count = PyTuple_Size(values);
  CallSlots slots;
  memset(slots.capsules, 0, sizeof slots.capsules);
  memset(slots.managed, 0, sizeof slots.managed);
  void* stream = NULL;
  int have_stream = 0, all_exchanged = 1, tensors = 0;
  for (Py_ssize_t i = 0; i < count; ++i) {
    PyObject* value = PyTuple_GetItem(values, i);
    int failed;
    if (launcher->is_buffer[i]) {
      ++tensors;
      failed = BindTensor(launcher, i, value, &slots, &stream, &have_stream, &all_exchanged);
    } else {
      failed = BindScalar(launcher, i, value, &slots);
    }
    if (failed) {
      Release(&slots, count);
      return -1;
    }
  }
  /* Without the GIL while the kernel runs (a CPU launch runs it on this thread), so that other
   * threads go on and Ctrl-C is seen when it returns; the capsules and managed tensors that
   * keep the tensors alive are held until then. */
  Py_BEGIN_ALLOW_THREADS;
  if (tensors > 0 && all_exchanged && have_stream) {
    *status = launcher->launch_async(launcher->kernel, slots.args, (size_t)count, stream);
  } else {
    *status = launcher->launch(launcher->kernel, slots.args, (size_t)count);
  }
  Py_END_ALLOW_THREADS;
  Release(&slots, count);
  return 0;
}

/* launch(launcher, args: tuple) -> int: libtile's status (0: done or enqueued); Python
 * exceptions for arguments that are not tensors or numbers. */
static PyObject* Launch(PyObject* self, PyObject* const_args) {
  (void)self;
  PyObject* capsule;
  PyObject* values;
  if (!PyArg_ParseTuple(const_args, "OO!", &capsule, &PyTuple_Type, &values)) return NULL;
  Launcher* launcher = (Launcher*)PyCapsule_GetPointer(capsule, kLauncherName);
  if (launcher == NULL) return NULL;
  Py_ssize_t count = PyTuple_Size(values);
  if (count != launcher->num_params) {
    PyErr_Format(PyExc_TypeError, "expected %zd arguments, got %zd", launcher->num_params,
                 count);
    return NULL;
  }
  tile_status status;
  if (LaunchValues(launcher, values, &status) != 0) return NULL;
  return PyLong_FromLong((long)status);
}

/* ------------------------------------------------------------------ */
/* KernelBase: tile.Kernel's base class, whose call is this C function, so that a call with
 * its arguments in order costs no Python frame. Anything else (keywords, another count, no
 * launcher: the ctypes path) goes to the instance's Python method _call. */

typedef struct {
  PyObject_HEAD
  PyObject* launcher; /* the capsule of prepare(), or NULL */
  PyObject* check;    /* raises the exception of a failed status: tile._lib.check */
} KernelBase;

static PyObject* KernelBaseCall(PyObject* self, PyObject* args, PyObject* kwargs) {
  KernelBase* base = (KernelBase*)self;
  const Launcher* launcher =
      base->launcher ? (const Launcher*)PyCapsule_GetPointer(base->launcher, kLauncherName)
                     : NULL;
  if (launcher == NULL || base->check == NULL || (kwargs != NULL && PyDict_Size(kwargs) > 0) ||
      PyTuple_Size(args) != launcher->num_params) {
    PyErr_Clear();
    PyObject* method = PyObject_GetAttrString(self, "_call");
    if (method == NULL) return NULL;
    PyObject* result = PyObject_Call(method, args, kwargs);
    Py_DECREF(method);
    return result;
  }
  /* Held for the call: a tensor's __dlpack__, or another thread while the kernel runs without
   * the GIL, may set another launcher. */
  PyObject* capsule = base->launcher;
  PyObject* check = base->check;
  Py_INCREF(capsule);
  Py_INCREF(check);
  tile_status status;
  PyObject* result = NULL;
  if (LaunchValues(launcher, args, &status) == 0) {
    PyObject* code = status == 0 ? NULL : PyLong_FromLong((long)status);
    if (status == 0) {
      result = Py_None;
      Py_INCREF(result);
    } else if (code != NULL) {
      /* NULL with check's exception; None if check found nothing to raise */
      result = PyObject_CallFunctionObjArgs(check, code, NULL);
      Py_DECREF(code);
    }
  }
  Py_DECREF(capsule);
  Py_DECREF(check);
  return result;
}

/* _set_launcher(capsule or None, check or None) */
static PyObject* KernelBaseSetLauncher(PyObject* self, PyObject* args) {
  KernelBase* base = (KernelBase*)self;
  PyObject *launcher, *check;
  if (!PyArg_ParseTuple(args, "OO", &launcher, &check)) return NULL;
  if (launcher != Py_None && !PyCapsule_IsValid(launcher, kLauncherName)) {
    PyErr_SetString(PyExc_TypeError, "_set_launcher: not a launcher from prepare()");
    return NULL;
  }
  if (check != Py_None && !PyCallable_Check(check)) {
    PyErr_SetString(PyExc_TypeError, "_set_launcher: check must be callable");
    return NULL;
  }
  PyObject* old_launcher = base->launcher;
  PyObject* old_check = base->check;
  if (launcher != Py_None) Py_INCREF(launcher);
  if (check != Py_None) Py_INCREF(check);
  base->launcher = launcher == Py_None ? NULL : launcher;
  base->check = check == Py_None ? NULL : check;
  Py_XDECREF(old_launcher);
  Py_XDECREF(old_check);
  Py_RETURN_NONE;
}

static void KernelBaseDealloc(PyObject* self) {
  KernelBase* base = (KernelBase*)self;
  PyTypeObject* type = Py_TYPE(self);
  Py_CLEAR(base->launcher);
  Py_CLEAR(base->check);
  freefunc free_slot = (freefunc)PyType_GetSlot(type, Py_tp_free);
  free_slot(self);
  Py_DECREF(type);
}

static PyMethodDef kKernelBaseMethods[] = {
    {"_set_launcher", KernelBaseSetLauncher, METH_VARARGS,
     "_set_launcher(launcher, check): what a call in C launches and raises with"},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot kKernelBaseSlots[] = {
    {Py_tp_call, (void*)KernelBaseCall},
    {Py_tp_dealloc, (void*)KernelBaseDealloc},
    {Py_tp_methods, kKernelBaseMethods},
    {Py_tp_doc, (void*)"tile.Kernel's base: a call with its arguments in order, in C."},
    {0, NULL},
};

static PyType_Spec kKernelBaseSpec = {
    "tile._launch.KernelBase", sizeof(KernelBase), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    kKernelBaseSlots,
};

/* ------------------------------------------------------------------ */
/* prepare(kernel, launch, launch_async, names: tuple, is_buffer: bytes) -> launcher, or None
 * for a kernel of more than kInlineArgs parameters (it takes the ctypes path); the first three
 * are addresses (ints) from ctypes. */

static void FreeLauncher(PyObject* capsule) {
  Launcher* launcher = (Launcher*)PyCapsule_GetPointer(capsule, kLauncherName);
  if (launcher == NULL) return;
  Py_XDECREF(launcher->names);
  free(launcher->is_buffer);
  free(launcher);
}

static PyObject* Prepare(PyObject* self, PyObject* args) {
  (void)self;
  PyObject *kernel, *launch, *launch_async, *names;
  const char* is_buffer;
  Py_ssize_t is_buffer_size;
  if (!PyArg_ParseTuple(args, "OOOO!y#", &kernel, &launch, &launch_async, &PyTuple_Type, &names,
                        &is_buffer, &is_buffer_size)) {
    return NULL;
  }
  if (PyTuple_Size(names) != is_buffer_size) {
    PyErr_SetString(PyExc_ValueError, "names and is_buffer differ in length");
    return NULL;
  }
  if (is_buffer_size > kInlineArgs) Py_RETURN_NONE;
  Launcher* launcher = (Launcher*)calloc(1, sizeof(Launcher));
  if (launcher == NULL) return PyErr_NoMemory();
  launcher->kernel = (tile_kernel*)PyLong_AsVoidPtr(kernel);
  launcher->launch = (LaunchFunction)PyLong_AsVoidPtr(launch);
  launcher->launch_async = (LaunchAsyncFunction)PyLong_AsVoidPtr(launch_async);
  launcher->num_params = is_buffer_size;
  launcher->is_buffer = (char*)malloc(is_buffer_size > 0 ? (size_t)is_buffer_size : 1);
  if (PyErr_Occurred() || launcher->is_buffer == NULL || launcher->kernel == NULL ||
      launcher->launch == NULL || launcher->launch_async == NULL) {
    free(launcher->is_buffer);
    free(launcher);
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a null kernel or function");
    return NULL;
  }
  memcpy(launcher->is_buffer, is_buffer, (size_t)is_buffer_size);
  Py_INCREF(names);
  launcher->names = names;
  PyObject* capsule = PyCapsule_New(launcher, kLauncherName, FreeLauncher);
  if (capsule == NULL) {
    Py_DECREF(names);
    free(launcher->is_buffer);
    free(launcher);
  }
  return capsule;
}

/* has_exchange_api(object) -> bool: whether calls read this object through the C exchange
 * table (and launch on its framework's stream); for tests and for Kernel.__repr__. */
static PyObject* HasExchangeApi(PyObject* self, PyObject* object) {
  (void)self;
  return PyBool_FromLong(ExchangeApiOf(object) != NULL);
}

static PyMethodDef kMethods[] = {
    {"prepare", Prepare, METH_VARARGS, "prepare(kernel, launch, launch_async, names, is_buffer)"},
    {"launch", Launch, METH_VARARGS, "launch(launcher, args) -> libtile status"},
    {"has_exchange_api", HasExchangeApi, METH_O, "has_exchange_api(tensor) -> bool"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef kModule = {
    PyModuleDef_HEAD_INIT, "tile._launch", "A compiled kernel's call in C.", -1, kMethods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__launch(void) {
  PyObject* numbers = PyImport_ImportModule("numbers");
  if (numbers == NULL) return NULL;
  numbers_real = PyObject_GetAttrString(numbers, "Real");
  numbers_integral = PyObject_GetAttrString(numbers, "Integral");
  Py_DECREF(numbers);
  if (numbers_real == NULL || numbers_integral == NULL) return NULL;
  PyObject* module = PyModule_Create(&kModule);
  if (module == NULL) return NULL;
  PyObject* kernel_base = PyType_FromSpec(&kKernelBaseSpec);
  if (kernel_base == NULL || PyModule_AddObject(module, "KernelBase", kernel_base) != 0) {
    Py_XDECREF(kernel_base);
    Py_DECREF(module);
    return NULL;
  }
  return module;
}
