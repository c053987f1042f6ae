"""The examples in python/examples/tilelang/ (TileLang's families, written with TileLang's
wrapper: tilelang.jit, out_idx, autotune, after `import tile as tilelang`) run on the CPU
target and match float64 numpy at their default and ragged shapes. The GPU machine runs the same
with torch tensors (bench/python_call/tilelang_examples_on_gpu.py)."""

import importlib
import importlib.util
import os
import sys

import pytest

HERE = os.environ.get("TEST_SRCDIR_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))
FOLDER = os.path.join(HERE, "python", "examples", "tilelang")
sys.path.insert(0, FOLDER)

EXAMPLES = sorted(f[:-3] for f in os.listdir(FOLDER) if f.endswith(".py") and not f.startswith("_"))


def load(name):
    """The example as its own module (python/examples/ has files of the same names)."""
    qualified = f"tilelang_examples.{name}"
    if qualified not in sys.modules:
        spec = importlib.util.spec_from_file_location(qualified,
                                                      os.path.join(FOLDER, name + ".py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[qualified] = module
        spec.loader.exec_module(module)
    return sys.modules[qualified]


CASES = [(name, shape) for name in EXAMPLES for shape in load(name).SHAPES]


def test_there_are_at_least_25_examples():
    assert len(EXAMPLES) >= 25, EXAMPLES


@pytest.mark.parametrize("name,shape", CASES, ids=[f"{n}-{s}" for n, s in CASES])
def test_example_matches_float64(name, shape):
    module = load(name)
    module.run(**module.SHAPES[shape])
