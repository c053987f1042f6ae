"""TileLang's profiler: kernel.get_profiler() makes inputs, checks a kernel against a reference
program and times it; do_bench times any callable.

    profiler = kernel.get_profiler(tensor_supply_type=tile.TensorSupplyType.Normal)
    profiler.assert_allclose(ref_program, rtol=1e-2, atol=1e-2)
    latency_ms = profiler.do_bench()

On a GPU target inputs are torch tensors on the GPU and times come from CUDA events, the L2
cache flushed before each run; on the CPU target inputs are numpy arrays and times are the
wall clock's."""

import importlib
import statistics
import time

from tile import _frameworks
from tile.utils.tensor import TensorSupplyType, assert_allclose


def _cuda_torch():
    """torch, when it is installed and sees a CUDA device; else None."""
    try:
        torch = importlib.import_module("torch")
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def _summary(times, quantiles, return_mode):
    if quantiles is not None:
        ordered = sorted(times)
        found = [ordered[min(len(ordered) - 1, int(q * len(ordered)))] for q in quantiles]
        return found[0] if len(found) == 1 else found
    if return_mode not in ("min", "max", "mean", "median"):
        raise ValueError(f"do_bench: return_mode is min, max, mean or median, not "
                         f"{return_mode!r}")
    return {"min": min, "max": max, "mean": statistics.fmean,
            "median": statistics.median}[return_mode](times)


def do_bench(fn, warmup=25, rep=100, _n_warmup=0, _n_repeat=0, quantiles=None,
             fast_flush=True, backend="event", return_mode="mean", device=None):
    """Milliseconds per call of `fn` (TileLang's and Triton's do_bench): runs it for about
    `warmup` ms, then times about `rep` ms of calls (or `_n_warmup` / `_n_repeat` calls), one
    by one. With torch and a CUDA device the calls are timed by CUDA events around each,
    after flushing the L2 cache (a 256 MiB write); otherwise by the wall clock."""
    if backend not in ("event", "cupti", "cudagraph"):
        raise ValueError(f"do_bench: backend is 'event', not {backend!r}")
    torch = _cuda_torch() if device != "cpu" else None
    if torch is None:
        return _bench_host(fn, warmup, rep, _n_warmup, _n_repeat, quantiles, return_mode)
    fn()
    torch.cuda.synchronize()
    flush = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        fn()
    end.record()
    torch.cuda.synchronize()
    estimate = max(start.elapsed_time(end) / 5, 1e-3)
    n_warmup = _n_warmup or max(1, int(warmup / estimate))
    n_repeat = _n_repeat or max(1, int(rep / estimate))
    for _ in range(n_warmup):
        fn()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    for i in range(n_repeat):
        if fast_flush:
            flush.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    return _summary([s.elapsed_time(e) for s, e in zip(starts, ends)], quantiles, return_mode)


def _bench_host(fn, warmup, rep, n_warmup, n_repeat, quantiles, return_mode):
    began = time.perf_counter()
    fn()
    estimate = max((time.perf_counter() - began) * 1e3, 1e-3)
    for _ in range(n_warmup or max(0, int(warmup / estimate))):
        fn()
    times = []
    for _ in range(n_repeat or max(1, int(rep / estimate))):
        began = time.perf_counter()
        fn()
        times.append((time.perf_counter() - began) * 1e3)
    return _summary(times, quantiles, return_mode)


class Profiler:
    """Inputs for a JITKernel, its check against a reference program, and its timing."""

    def __init__(self, kernel, tensor_supply_type=None, seed=0):
        self.kernel = kernel
        self.supply_type = tensor_supply_type or TensorSupplyType.Auto
        if not isinstance(self.supply_type, TensorSupplyType):
            raise TypeError(f"get_profiler: tensor_supply_type is a tile.TensorSupplyType, not "
                            f"{self.supply_type!r}")
        self.target = kernel._target_name()  # pylint: disable=protected-access
        import numpy as np  # pylint: disable=import-outside-toplevel
        self._generator = np.random.default_rng(seed)

    @property
    def func(self):
        """The kernel the profiler runs (TileLang's profiler.func), callable on tensors."""
        return self.kernel

    def _get_inputs(self, dynamic_symbolic_constraints=None):
        """Fresh inputs of the kernel, as TensorSupplyType says: torch tensors on the GPU for a
        GPU target, numpy arrays for the CPU's."""
        dims = dict(dynamic_symbolic_constraints or {})
        framework = _frameworks.framework_for_target(self.target)
        device = None if framework == "numpy" else "cuda"
        inputs = []
        for param in self.kernel.input_params():
            if param.WhichOneof("kind") != "buffer":
                raise ValueError(f"kernel '{self.kernel.name}': the profiler cannot make the "
                                 f"scalar input '{param.scalar.name}'; pass input_tensors")
            buffer = param.buffer
            what = (f"kernel '{self.kernel.name}': input '{buffer.name}' (a shape with dims "
                    "needs dynamic_symbolic_constraints={'dim': value})")
            from tile.jit import _eval_int, _ir_dtype  # pylint: disable=import-outside-toplevel
            shape = [_eval_int(e, dims, what) for e in buffer.shape]
            inputs.append(_frameworks.random(framework, shape, _ir_dtype(buffer.dtype),
                                             self.supply_type.name, self._generator, device))
        return inputs

    def run_once(self, func=None):
        ins = self._get_inputs()
        return (func or self.kernel)(*ins)

    def assert_allclose(self, reference_program, input_tensors=None, atol=1e-2, rtol=1e-2,
                        max_mismatched_ratio=0.01):
        """Runs the kernel and `reference_program` on the same inputs (generated unless given)
        and compares each output in float64 (tile.utils.tensor.assert_allclose)."""
        ins = self._get_inputs() if input_tensors is None else list(input_tensors)
        ref_outs = _as_list(reference_program(*ins))
        _frameworks.synchronize(ins)
        outs = _as_list(self.kernel(*ins))
        _frameworks.synchronize(ins)
        if len(outs) != len(ref_outs):
            raise AssertionError(f"kernel '{self.kernel.name}' returned {len(outs)} outputs, "
                                 f"the reference program {len(ref_outs)}")
        for i, (out, ref) in enumerate(zip(outs, ref_outs)):
            if out is not None and ref is not None:
                assert_allclose(out, ref, rtol=rtol, atol=atol,
                                max_mismatched_ratio=max_mismatched_ratio,
                                name=f"{self.kernel.name} output {i}", ref_name="reference")

    def assert_consistent(self, repeat=10):
        """Runs the kernel `repeat` times on the same inputs; every run must give the first's
        outputs bit for bit (a race shows as a difference)."""
        import numpy as np  # pylint: disable=import-outside-toplevel
        ins = self._get_inputs()
        first = [_frameworks.to_float64(o) for o in _as_list(self.kernel(*ins))]
        for _ in range(repeat):
            again = [_frameworks.to_float64(o) for o in _as_list(self.kernel(*ins))]
            for a, b in zip(first, again):
                if not np.array_equal(a, b, equal_nan=True):
                    raise AssertionError(f"kernel '{self.kernel.name}' gave different outputs "
                                         "on the same inputs")

    def do_bench(self, func=None, warmup=25, rep=100, n_warmup=0, n_repeat=0,
                 input_tensors=None, backend="event", quantiles=None, return_mode="mean",
                 dynamic_symbolic_constraints=None, **unused):
        """Milliseconds per call of the kernel (or `func`) on generated inputs."""
        ins = (list(input_tensors) if input_tensors is not None
               else self._get_inputs(dynamic_symbolic_constraints))
        target = func or self.kernel
        on_gpu = not self.target.startswith("cpu")
        return do_bench(lambda: target(*ins), warmup=warmup, rep=rep, _n_warmup=n_warmup,
                        _n_repeat=n_repeat, quantiles=quantiles, backend=backend,
                        return_mode=return_mode, device=None if on_gpu else "cpu")


def _as_list(outputs):
    if outputs is None:
        return []
    if isinstance(outputs, (list, tuple)):
        return list(outputs)
    return [outputs]


__all__ = ["Profiler", "TensorSupplyType", "do_bench"]
