"""TileLang's autotuner over tile's (runtime/jit/autotuner.h, reached through tile_autotune):

    @tile.autotune(configs=[{"block_M": 64}, {"block_M": 128}], ref_prog=ref, warmup=3, rep=20)
    @tile.jit(out_idx=[-1])
    def matmul(M, N, K, block_M=64):
        ...
    kernel = matmul(1024, 1024, 1024)   # tuned once: the fastest correct config's kernel
    kernel.config, kernel.latency, kernel.autotune_report

Each config (a dict of the factory's keyword arguments) is traced here; libtile compiles every
candidate in parallel through the kernel cache, then each is run on the same generated inputs,
checked against `ref_prog` (a wrong one is refused, never timed) and timed; the fastest is
stored in the kernel cache, keyed by every candidate's kernel text, the problem and the
target, so the next process that tunes the same candidates gets it without tuning
(`kernel.autotune_report.from_cache`). Without `ref_prog` candidates are not checked (the report
says so). `AutoTuner.from_kernel(...).set_compile_args(...).set_profile_args(...).run()` is
TileLang's longer form."""

import ctypes
import dataclasses
import functools
import inspect
import sys
import threading
import time

from tile import _frameworks, _lib, _targets
from tile.jit import JITImpl, JITKernel, _hashable
from tile.kernel import Kernel
from tile.profiler import Profiler, _as_list, do_bench
from tile.utils.tensor import TensorSupplyType, assert_allclose

_BUILD = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t,
                          ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_char_p))
_TIME = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p,
                         ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_char_p))


class _Request(ctypes.Structure):
    _fields_ = [("target", ctypes.c_char_p), ("kernel_name", ctypes.c_char_p),
                ("num_candidates", ctypes.c_size_t), ("build", _BUILD),
                ("check_and_time", _TIME), ("user", ctypes.c_void_p),
                ("problem", ctypes.c_char_p), ("parallel_compiles", ctypes.c_int),
                ("retune", ctypes.c_int)]


@dataclasses.dataclass
class CandidateReport:
    config: dict
    latency: float = None  # milliseconds, when it passed
    error: str = None


@dataclasses.dataclass
class AutotuneReport:
    """The evidence of a choice: every candidate's latency or why it was refused."""
    best: dict
    candidates: list
    device: str
    date: str
    from_cache: bool
    checked: bool

    def explain(self):
        lines = [f"best {self.best} on {self.device} ({self.date}"
                 f"{', stored earlier' if self.from_cache else ''})"]
        if not self.checked:
            lines.append("candidates were not checked: no ref_prog")
        for c in self.candidates:
            lines.append(f"  {c.config}: " + (f"{c.latency:.4f} ms" if c.error is None
                                              else f"refused: {c.error}"))
        return "\n".join(lines)


@dataclasses.dataclass
class AutotuneResult:
    """TileLang's result of AutoTuner.run()."""
    latency: float
    config: dict
    ref_latency: float  # TileLang's reference time; not measured here: None
    kernel: JITKernel
    report: AutotuneReport
    libcode: str = None
    func: object = None


_capture = threading.local()


class set_autotune_inputs:  # pylint: disable=invalid-name
    """TileLang's `with set_autotune_inputs(A, B, ...):` (or one list): the tensors every
    candidate of an autotune inside the block runs on, instead of generated ones."""

    def __init__(self, *tensors):
        self.tensors = list(tensors[0]) if len(tensors) == 1 and isinstance(
            tensors[0], (list, tuple)) else list(tensors)

    def __enter__(self):
        if not hasattr(_capture, "stack"):
            _capture.stack = []
        _capture.stack.append(self.tensors)
        return self

    def __exit__(self, *exc):
        _capture.stack.pop()
        return False


def _captured_inputs():
    stack = getattr(_capture, "stack", None)
    return stack[-1] if stack else None


class AutoTuner:
    """TileLang's AutoTuner: from_kernel(factory, configs), set_compile_args, set_profile_args,
    run."""

    def __init__(self, fn, configs):
        self.fn = fn
        self.configs = configs
        self.compile_args = dict(out_idx=None, target="auto", pass_configs=None)
        self.profile_args = dict(warmup=25, rep=100, timeout=30, supply_type=None,
                                 ref_prog=None, supply_prog=None, rtol=1e-2, atol=1e-2,
                                 max_mismatched_ratio=0.01, skip_check=False,
                                 manual_check_prog=None, cache_input_tensors=True)
        self.retune = False
        self.verbose = True
        self.trace = None   # config -> prim_func, where not the factory's call (eager form)
        self.inputs = None  # the tensors candidates run on, where the call gave them
        self.sizes = None   # the eager form's T.const sizes, part of the problem's key

    @classmethod
    def from_kernel(cls, kernel, configs):
        return cls(kernel, configs)

    def set_compile_args(self, out_idx=None, target="auto", execution_backend="auto",
                         target_host=None, verbose=False, pass_configs=None, **unused):
        del execution_backend, target_host, unused
        self.compile_args = dict(out_idx=out_idx, target=target, pass_configs=pass_configs,
                                 verbose=verbose)
        return self

    def set_profile_args(self, warmup=25, rep=100, timeout=30, supply_type=None, ref_prog=None,
                         supply_prog=None, rtol=1e-2, atol=1e-2, max_mismatched_ratio=0.01,
                         skip_check=False, manual_check_prog=None, cache_input_tensors=True,
                         **unused):
        del unused
        self.profile_args = dict(warmup=warmup, rep=rep, timeout=timeout,
                                 supply_type=supply_type, ref_prog=ref_prog,
                                 supply_prog=supply_prog, rtol=rtol, atol=atol,
                                 max_mismatched_ratio=max_mismatched_ratio,
                                 skip_check=skip_check, manual_check_prog=manual_check_prog,
                                 cache_input_tensors=cache_input_tensors)
        return self

    def run(self, warmup=None, rep=None, timeout=None, args=(), kwargs=None):
        """Tunes: the fastest correct config's AutotuneResult."""
        for key, value in (("warmup", warmup), ("rep", rep), ("timeout", timeout)):
            if value is not None:
                self.profile_args[key] = value
        return _tune(self, tuple(args), dict(kwargs or {}))


def _factory(fn):
    """The function that returns a prim_func for keyword arguments (a @tile.jit's own)."""
    return fn.func if isinstance(fn, JITImpl) else fn


def _tune(tuner, args, kwargs):
    factory = _factory(tuner.fn)
    configs = tuner.configs(*args, **kwargs) if callable(tuner.configs) else tuner.configs
    configs = [dict(c) for c in configs]
    if not configs:
        raise ValueError(f"autotune '{factory.__name__}': no configs to try")
    parameters = inspect.signature(factory).parameters
    takes_any = any(p.kind == p.VAR_KEYWORD for p in parameters.values())
    for config in configs if not takes_any else ():
        unknown = [k for k in config if k not in parameters]
        if unknown:
            raise TypeError(f"autotune '{factory.__name__}': config {config} names "
                            f"'{unknown[0]}', which is not a parameter of the function")
    profile = tuner.profile_args
    target = _targets.resolve(tuner.compile_args.get("target"), tuner.inputs or ())
    # How a config becomes a prim_func: the factory's call (lazy form), or the eager body's
    # trace at the call's sizes (AutotuneImpl sets tuner.trace).
    trace = tuner.trace or (lambda config: factory(*args, **{**kwargs, **config}))
    jit_kernels, messages = {}, {}
    # The first config's prim_func names the kernel every candidate defines; its trace is
    # kept for build(0) rather than made twice.
    traced = {0: trace(configs[0])}

    def build(_user, index, module_out, error_out):
        try:
            result = traced.pop(index, None) or trace(configs[index])
            if len(getattr(result, "kernel_names", [None])) > 1:
                raise NotImplementedError("a prim_func of several T.Kernel blocks is not "
                                          "autotuned yet (tile_autotune times one kernel)")
            module_out[0] = result.module._live_handle().value  # pylint: disable=protected-access
            compile_args = dict(tuner.compile_args)
            if result.out_idx is not None:  # the eager form's T.empty outputs
                compile_args["out_idx"] = result.out_idx
            jit_kernels[index] = JITKernel(result, **compile_args)
            return 0
        except Exception as error:  # pylint: disable=broad-except
            return _fail(index, error, error_out)

    def _fail(index, error, error_out):
        messages[index] = f"{type(error).__name__}: {error}".encode()
        error_out[0] = messages[index]  # kept alive in `messages` until tuning ends
        return 1

    inputs, reference = [], []
    given = tuner.inputs if tuner.inputs is not None else _captured_inputs()

    def inputs_for(kernel):
        if not inputs:
            if given is not None:  # the eager call's own tensors, or set_autotune_inputs'
                inputs.extend(given)
            elif profile["supply_prog"] is not None:
                inputs.extend(profile["supply_prog"](kernel.input_params()))
            else:
                profiler = Profiler(kernel, profile["supply_type"] or TensorSupplyType.Auto)
                inputs.extend(profiler._get_inputs())  # pylint: disable=protected-access
            if profile["ref_prog"] is not None and not profile["skip_check"]:
                reference.extend(_as_list(profile["ref_prog"](*inputs)))
                _frameworks.synchronize(inputs)
        return inputs

    def check_and_time(_user, index, handle, seconds_out, error_out):
        try:
            kernel = jit_kernels[index]
            borrowed = Kernel(ctypes.c_void_p(handle), None, owned=False)
            kernel._kernels[target] = [borrowed]  # pylint: disable=protected-access
            try:
                ins = inputs_for(kernel)
                began = time.perf_counter()
                outs = _as_list(kernel(*ins))
                _frameworks.synchronize(ins)
                once = time.perf_counter() - began
                if once > profile["timeout"]:
                    raise TimeoutError(f"one run took {once:.1f} s, over the timeout of "
                                       f"{profile['timeout']} s")
                if reference:
                    if len(outs) != len(reference):
                        raise AssertionError(f"{len(outs)} outputs, the reference has "
                                             f"{len(reference)}")
                    for out, ref in zip(outs, reference):
                        assert_allclose(out, ref, rtol=profile["rtol"], atol=profile["atol"],
                                        max_mismatched_ratio=profile["max_mismatched_ratio"],
                                        name=f"config {configs[index]}", ref_name="ref_prog")
                if profile["manual_check_prog"] is not None:
                    profile["manual_check_prog"](outs, reference)
                on_gpu = not target.startswith("cpu")
                latency = do_bench(lambda: kernel(*ins), warmup=profile["warmup"],
                                   rep=profile["rep"], device=None if on_gpu else "cpu")
                seconds_out[0] = latency / 1e3
                if tuner.verbose:
                    print(f"autotune {factory.__name__}: {configs[index]}: {latency:.4f} ms",
                          file=sys.stderr)
                return 0
            finally:
                borrowed.release()
                del kernel._kernels[target]  # pylint: disable=protected-access
        except Exception as error:  # pylint: disable=broad-except
            if tuner.verbose:
                print(f"autotune {factory.__name__}: {configs[index]}: refused: {error}",
                      file=sys.stderr)
            return _fail(index, error, error_out)

    build_callback, time_callback = _BUILD(build), _TIME(check_and_time)
    name = traced[0].name
    problem = (f"{factory.__module__}.{factory.__qualname__} args={_hashable(args)!r} "
               f"kwargs={_hashable(kwargs)!r} configs={_hashable(configs)!r}"
               + (f" sizes={_hashable(tuner.sizes)!r}" if tuner.sizes else ""))
    request = _Request(target=target.encode(), kernel_name=name.encode(),
                       num_candidates=len(configs), build=build_callback,
                       check_and_time=time_callback, user=None, problem=problem.encode(),
                       parallel_compiles=0, retune=1 if tuner.retune else 0)
    best, report = ctypes.c_size_t(0), ctypes.c_void_p()
    _lib.check(_lib.lib.tile_autotune(ctypes.addressof(request), ctypes.byref(best),
                                      ctypes.byref(report)))
    try:
        text = ctypes.string_at(report.value).decode()
    finally:
        _lib.lib.tile_string_free(report)
    evidence = _parse_report(text, configs, checked=bool(reference) or (
        profile["ref_prog"] is not None and not profile["skip_check"]))
    chosen = configs[best.value]
    # Every candidate is built even when the choice was stored (the record's key holds their
    # kernel texts), so the chosen one's kernel is at hand.
    kernel = jit_kernels[best.value]
    latency = next((c.latency for c in evidence.candidates if c.config == chosen), None)
    kernel.config, kernel.latency, kernel.autotune_report = chosen, latency, evidence
    kernel.ref_latency = None  # TileLang times ref_prog too; not measured here
    return AutotuneResult(latency=latency, config=chosen, ref_latency=None,
                          kernel=kernel, report=evidence, func=kernel.prim_func)


def _parse_report(text, configs, checked):
    best, device, date, from_cache, candidates = None, "", "", False, []
    for line in text.splitlines():
        word, _, rest = line.partition(" ")
        if word == "best":
            best = configs[int(rest.split("=")[1])]
        elif word == "device":
            device = rest
        elif word == "date":
            date = rest
        elif word == "from_cache":
            from_cache = rest.strip() == "1"
        elif word == "candidate":
            label, _, result = rest.partition(" ")
            config = configs[int(label.split("=")[1])]
            if result.startswith("error "):
                candidates.append(CandidateReport(config, error=result[len("error "):]))
            else:
                candidates.append(CandidateReport(config, latency=float(result) * 1e3))
    return AutotuneReport(best=best, candidates=candidates, device=device, date=date,
                          from_cache=from_cache, checked=checked)


class AutotuneImpl:
    """What @tile.autotune makes of a @tile.jit function. Lazy form: calling it tunes once per
    arguments and returns the best kernel. Eager form (the body declares its tensors): calling
    it tunes on the call's own tensors, once per their sizes and the other arguments, and
    returns the best kernel's outputs; `.compile(...)` returns the kernel (TileLang's)."""

    def __init__(self, fn, configs, profile_args):
        if not isinstance(fn, JITImpl):
            raise TypeError("@tile.autotune goes above @tile.jit(...): "
                            f"'{getattr(fn, '__name__', fn)}' is not a @tile.jit function")
        self.fn = fn
        self.configs = configs
        self.profile_args = profile_args
        self._tuned = {}
        functools.update_wrapper(self, fn.func)

    def _all_given(self, given):
        """Whether `given` (the call's bound arguments) has a value (not None) for every key of
        every config: then the call names its kernel and nothing is tuned (TileLang's)."""
        if callable(self.configs):
            return False
        keys = {k for config in self.configs for k in config}
        return bool(keys) and all(given.get(k) is not None for k in keys)

    def _tuner(self, inputs=None, trace=None):
        tuner = AutoTuner(self.fn, self.configs)
        tuner.set_compile_args(**self.fn.compile_args)
        tuner.set_profile_args(**self.profile_args)
        tuner.inputs, tuner.trace = inputs, trace
        return tuner

    def _lazy_kernel(self, args, kwargs):
        key = (_hashable(args), _hashable(kwargs))
        if key not in self._tuned:
            given = inspect.signature(self.fn.func).bind_partial(*args, **kwargs).arguments
            if self._all_given(given):
                self._tuned[key] = self.fn(*args, **kwargs)
            else:
                self._tuned[key] = self._tuner().run(args=args, kwargs=kwargs).kernel
        return self._tuned[key]

    def _eager_kernel(self, given, static, consts, inputs):
        """The kernel of an eager function for these arguments (`given` the call's own,
        `static` with the defaults) and T.const sizes; tuned on `inputs` (the call's tensors)
        or, without them, on generated ones."""
        if self._all_given(given):  # JITImpl keeps it
            return self.fn._eager_kernel(static, consts)  # pylint: disable=protected-access
        key = ("eager", _hashable(static), _hashable(consts))
        if key not in self._tuned:
            eager = self.fn._eager  # pylint: disable=protected-access
            trace = lambda config: eager.trace({**static, **config}, consts)
            # Tensor parameters are declared in the body: the candidates' arguments are the
            # static ones, so the tuner is called with those alone.
            tuner = self._tuner(inputs=inputs, trace=trace)
            tuner.sizes = consts
            self._tuned[key] = tuner.run(kwargs=static).kernel
        return self._tuned[key]

    def compile(self, *args, **kwargs):
        """The (tuned, unless every config key is given) JITKernel of these arguments; in the
        eager form, T.const sizes may be given by name as in JITImpl.compile."""
        eager = self.fn._eager  # pylint: disable=protected-access
        if eager is None:
            return self._lazy_kernel(args, kwargs)
        consts = {k: v for k, v in kwargs.items() if k not in eager.signature.parameters}
        kwargs = {k: v for k, v in kwargs.items() if k in eager.signature.parameters}
        tensors, static = eager.split(args, kwargs)
        if tensors:
            consts = {**eager.consts_of(tensors, static), **consts}
        inputs = [tensors[n] for n in eager.declared] if len(tensors) == len(eager.declared) \
            else None
        return self._eager_kernel(_given(eager, args, kwargs), static, consts, inputs)

    def __call__(self, *args, **kwargs):
        eager = self.fn._eager  # pylint: disable=protected-access
        if eager is None:
            return self._lazy_kernel(args, kwargs)
        tensors, static = eager.split(args, kwargs)
        inputs = [tensors[n] for n in eager.declared]
        kernel = self._eager_kernel(_given(eager, args, kwargs), static,
                                    eager.consts_of(tensors, static), inputs)
        return kernel(*inputs)

    def __repr__(self):
        return f"<tile.autotune {self.fn.func.__name__}>"


def _given(eager, args, kwargs):
    """The arguments a call to an eager function names itself (no defaults)."""
    return eager.signature.bind_partial(*args, **kwargs).arguments


def autotune(configs=None, warmup=25, rep=100, timeout=100, supply_type=None, ref_prog=None,
             supply_prog=None, rtol=1e-2, atol=1e-2, max_mismatched_ratio=0.01,
             skip_check=False, manual_check_prog=None, cache_input_tensors=False, **unused):
    """@tile.autotune(configs=..., ...) above @tile.jit: TileLang's decorator (the module doc)."""
    if configs is None:
        raise ValueError("@tile.autotune needs configs= (a list of dicts, or a function of the "
                         "call's arguments returning one)")
    profile_args = dict(warmup=warmup, rep=rep, timeout=timeout, supply_type=supply_type,
                        ref_prog=ref_prog, supply_prog=supply_prog, rtol=rtol, atol=atol,
                        max_mismatched_ratio=max_mismatched_ratio, skip_check=skip_check,
                        manual_check_prog=manual_check_prog,
                        cache_input_tensors=cache_input_tensors)
    del unused
    return lambda fn: AutotuneImpl(fn, configs, profile_args)


__all__ = ["AutoTuner", "AutotuneResult", "autotune", "set_autotune_inputs"]
