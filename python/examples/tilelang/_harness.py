"""What the examples share: inputs drawn with numpy's generator and placed in the framework a
run asks for (numpy on the CPU target, torch on a GPU), and the comparison of an output with its
float64 reference. Not TileLang's: the examples' kernels and wrappers are written as TileLang's
are; this file only lets one example run in CI (numpy, CPU) and on the GPU machine (torch)."""

import numpy as np

from tile import _frameworks

# IR dtype names of TileLang's spellings (the harness makes tensors by them).
_IR = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float": "f32",
       "float64": "f64", "int8": "i8", "int32": "i32", "int64": "i64", "uint8": "u8",
       "bool": "bool", "float8_e4m3": "f8e4m3", "float8_e4m3fn": "f8e4m3",
       "float8_e5m2": "f8e5m2", "int16": "i16"}


class Inputs:
    """Makes a run's tensors: `framework` "numpy" (host arrays) or "torch" (on `device`)."""

    def __init__(self, framework="numpy", device="cuda", seed=0):
        self.framework = framework
        self.device = device
        self.rng = np.random.default_rng(seed)

    def _place(self, data, dtype):
        ir = _IR[str(dtype)]
        if self.framework == "numpy":
            return data.astype(_frameworks._dtype("numpy", ir))  # pylint: disable=protected-access
        import torch  # pylint: disable=import-outside-toplevel
        return torch.from_numpy(np.ascontiguousarray(data, dtype=np.float64)).to(
            dtype=_frameworks._dtype("torch", ir), device=self.device)  # pylint: disable=protected-access

    def randn(self, shape, dtype="float16", scale=1.0):
        return self._place(self.rng.standard_normal(shape) * scale, dtype)

    def uniform(self, shape, dtype="float16", low=-1.0, high=1.0):
        return self._place(self.rng.uniform(low, high, shape), dtype)

    def integers(self, shape, dtype="int32", low=0, high=10):
        return self._place(self.rng.integers(low, high, shape), dtype)

    def zeros(self, shape, dtype="float32"):
        return self._place(np.zeros(shape), dtype)

    def full(self, shape, value, dtype="float32"):
        return self._place(np.full(shape, value, dtype=np.float64), dtype)

    def poisoned(self, shape, dtype="float32"):
        """An output the kernel must write in full: NaN (float) or a large value (int)."""
        fill = np.nan if not str(dtype).startswith(("int", "uint", "bool")) else 77
        return self._place(np.full(shape, fill, dtype=np.float64), dtype)


def f64(value):
    """A float64 numpy copy of any framework's tensor."""
    return _frameworks.to_float64(value)


def check(name, output, reference, rtol=1e-2, atol=1e-2):
    """The largest error of `output` against `reference` (float64), or an AssertionError naming
    the output and its worst element when it is beyond atol + rtol * |reference|."""
    got, want = f64(output), np.asarray(reference, dtype=np.float64)
    if got.shape != want.shape:
        raise AssertionError(f"{name}: shape {got.shape}, reference {want.shape}")
    error = np.abs(got - want)
    bad = ~(error <= atol + rtol * np.abs(want))  # NaN counts as bad
    if bad.any():
        worst = np.unravel_index(np.argmax(np.where(bad, np.nan_to_num(error, nan=np.inf), -1)),
                                 got.shape)
        raise AssertionError(f"{name}: {int(bad.sum())} of {got.size} elements differ; worst at "
                             f"{tuple(int(i) for i in worst)}: {got[worst]} vs {want[worst]}")
    return float(error.max()) if error.size else 0.0
