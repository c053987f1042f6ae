"""T.print and T.device_assert (TileLang's debugging statements) are refused until the IR has
them: they need a string in the IR and a marking of whether one thread or every thread runs
them, so that thread binding neither drops nor multiplies them."""

import pytest

import tile.language as T


def test_print_and_device_assert_are_refused_naming_what_the_ir_lacks():
    with pytest.raises(NotImplementedError, match=r"T.print: the IR has no printing statement"):
        T.print(1)
    with pytest.raises(NotImplementedError,
                       match=r"T.device_assert: the IR has no assertion statement"):
        T.device_assert(True, "never")
