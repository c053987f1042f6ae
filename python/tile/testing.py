"""TileLang's tilelang.testing: seeds, closeness checks and pytest markers that skip a test
where its device is missing."""

import importlib
import inspect
import random
import sys

from tile import _targets
from tile.utils.tensor import assert_allclose, torch_assert_close

__all__ = ["assert_allclose", "main", "requires_cuda", "requires_cuda_compute_version",
           "requires_cuda_compute_version_ge", "requires_package", "set_random_seed",
           "torch_assert_close"]


def set_random_seed(seed=42):
    """Seeds Python's, numpy's and (when installed) torch's generators."""
    random.seed(seed)
    try:
        import numpy  # pylint: disable=import-outside-toplevel
        numpy.random.seed(seed)
    except ImportError:
        pass
    try:
        torch = importlib.import_module("torch")
        torch.manual_seed(seed)
    except ImportError:
        pass


def main():
    """Runs the calling module's tests with pytest (TileLang's tilelang.testing.main())."""
    import pytest  # pylint: disable=import-outside-toplevel
    caller = inspect.stack()[1].filename
    sys.exit(pytest.main([caller] + sys.argv[1:]))


def _skip_unless(condition, reason):
    import pytest  # pylint: disable=import-outside-toplevel
    return pytest.mark.skipif(not condition, reason=reason)


def _cuda_version():
    arch = _targets.cuda_arch()
    if not arch:
        return None
    digits = arch[3:].rstrip("a")
    return int(digits[:-1]), int(digits[-1])


def requires_cuda(func):
    return _skip_unless(_targets.cuda_arch() is not None, "needs a CUDA device")(func)


def requires_cuda_compute_version(major_version, minor_version=0, mode="ge"):
    wanted = (major_version, minor_version)
    have = _cuda_version()
    checks = {"ge": lambda: have >= wanted, "gt": lambda: have > wanted,
              "eq": lambda: have == wanted, "lt": lambda: have < wanted,
              "le": lambda: have <= wanted}
    met = have is not None and checks[mode]()
    return _skip_unless(met, f"needs a CUDA device of compute capability {mode} "
                             f"{major_version}.{minor_version}")


def requires_cuda_compute_version_ge(major_version, minor_version=0):
    return requires_cuda_compute_version(major_version, minor_version, "ge")


def requires_package(*packages):
    def decorate(func):
        for package in packages:
            try:
                importlib.import_module(package)
            except ImportError:
                return _skip_unless(False, f"needs the Python package {package}")(func)
        return func
    return decorate
