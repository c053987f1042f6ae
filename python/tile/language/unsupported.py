"""TileLang constructs that tile_ir.v1 cannot express, each refused with a
NotImplementedError that says what the IR lacks, rather than approximated."""

from tile.language import _where


def _refuse(name, reason):
    def refuse(*args, **kwargs):
        raise NotImplementedError(f"{_where.here()}: T.{name}: {reason}")
    refuse.__name__ = name
    refuse.__doc__ = f"Not available: {reason}."
    return refuse


REFUSED = {
    "alloc_barrier": "the IR has no barrier objects; targets place their own mbarriers",
    "barrier_wait": "the IR has no barrier objects; targets place their own mbarriers",
    "barrier_arrive": "the IR has no barrier objects; targets place their own mbarriers",
    "print": "the IR has no printing statement",
    "device_assert": "the IR has no assertion statement",
    "call_extern": "the IR calls only the intrinsics registered in tile_ir/intrinsics.h",
}

globals().update({name: _refuse(name, reason) for name, reason in REFUSED.items()})
