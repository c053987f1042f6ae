"""How a profiler makes inputs (TensorSupplyType, TileLang's names) and how outputs are compared
with a reference: in float64, element by element, allowing a small share of mismatches as
TileLang's torch_assert_close does."""

import enum

from tile import _frameworks


class TensorSupplyType(enum.Enum):
    """TileLang's kinds of generated inputs. Integer: integers in [-2, 2]; Uniform: U(-1, 1);
    Normal: N(-1, 1) (TileLang's mean and deviation); Randn: N(0, 1); Zero; One; Auto: U(-1, 1)
    for floats, integers in [-2, 2] for integers. Unsigned 8-bit values are in [0, 2], bools
    0 or 1, FP8 values multiples of 1/16 in [-8, 8)."""
    Integer = 1
    Uniform = 2
    Normal = 3
    Randn = 4
    Zero = 5
    One = 6
    Auto = 7


def assert_allclose(actual, expected, rtol=1e-2, atol=1e-2, max_mismatched_ratio=0.0,
                    name="tile", ref_name="ref"):
    """Compares two tensors of any framework in float64: an element mismatches where
    |actual - expected| > atol + rtol * |expected| (or one is NaN and the other not); raises
    AssertionError when more than `max_mismatched_ratio` of them do, naming the count and the
    worst elements."""
    import numpy as np  # pylint: disable=import-outside-toplevel
    got, want = _frameworks.to_float64(actual), _frameworks.to_float64(expected)
    if got.shape != want.shape:
        raise AssertionError(f"{name} has shape {got.shape}, {ref_name} {want.shape}")
    nan_mismatch = np.isnan(got) != np.isnan(want)
    with np.errstate(invalid="ignore"):
        error = np.abs(got - want)
        bad = (error > atol + rtol * np.abs(want)) | nan_mismatch
        bad &= ~(np.isnan(got) & np.isnan(want))
    count = int(bad.sum())
    if count <= max_mismatched_ratio * got.size:
        return
    worst = np.argsort(np.where(bad, np.nan_to_num(error, nan=np.inf), -1).ravel())[::-1][:5]
    examples = ", ".join(
        f"{tuple(int(i) for i in np.unravel_index(k, got.shape))}: {got.ravel()[k]:.6g} vs "
        f"{want.ravel()[k]:.6g}" for k in worst if bad.ravel()[k])
    raise AssertionError(
        f"{name} and {ref_name} differ at {count} of {got.size} elements "
        f"({100.0 * count / max(got.size, 1):.3g}%, allowed {100.0 * max_mismatched_ratio:.3g}%; "
        f"rtol {rtol}, atol {atol}); worst: {examples}")


def torch_assert_close(tensor_a, tensor_b, rtol=1e-2, atol=1e-3, max_mismatched_ratio=0.001,
                       verbose=False, equal_nan=True, check_device=True, check_dtype=True,
                       base_name="LHS", ref_name="RHS"):
    """TileLang's tilelang.utils.tensor.torch_assert_close: assert_allclose under its name and
    defaults (any framework's tensors)."""
    del verbose, equal_nan, check_device, check_dtype
    assert_allclose(tensor_a, tensor_b, rtol=rtol, atol=atol,
                    max_mismatched_ratio=max_mismatched_ratio, name=base_name, ref_name=ref_name)


def get_tensor_supply(supply_type=TensorSupplyType.Integer, target="auto", seed=0):
    """TileLang's tilelang.utils.tensor.get_tensor_supply: a function that makes one input for
    a kernel parameter (a tile_ir.v1.Param, as JITKernel.input_params() gives them, or any
    object with `shape` and `dtype`), drawn as `supply_type` says, in the framework and on the
    device of `target` ("auto": the GPU when there is one, as TileLang's current device)."""
    import numpy as np  # pylint: disable=import-outside-toplevel
    from tile import _targets  # pylint: disable=import-outside-toplevel
    from tile.jit import _eval_int, _ir_dtype  # pylint: disable=import-outside-toplevel
    if not isinstance(supply_type, TensorSupplyType):
        raise TypeError(f"get_tensor_supply: supply_type is a TensorSupplyType, not "
                        f"{supply_type!r}")
    generator = np.random.default_rng(seed)

    def get_tensor(param):
        framework = _frameworks.framework_for_target(_targets.resolve(target))
        device = None if framework == "numpy" else "cuda"
        if hasattr(param, "WhichOneof"):
            if param.WhichOneof("kind") != "buffer":
                raise ValueError(f"get_tensor_supply: '{param.scalar.name}' is a scalar "
                                 "parameter; only buffers are made")
            buffer = param.buffer
            what = (f"get_tensor_supply: '{buffer.name}' has a shape with dims; make it "
                    "yourself")
            shape = [_eval_int(e, {}, what) for e in buffer.shape]
            dtype = _ir_dtype(buffer.dtype)
        else:
            from tile.language import dtypes  # pylint: disable=import-outside-toplevel
            shape = list(param.shape)
            dtype = dtypes.parse(str(param.dtype).replace("torch.", ""), "get_tensor_supply")
            dtype = dtype.ir_name
        return _frameworks.random(framework, shape, dtype, supply_type.name, generator, device)

    return get_tensor
