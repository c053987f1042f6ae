"""TileLang's cache switches (tilelang.disable_cache(), enable_cache(), is_cache_enabled()).

libtile keeps compiled kernels in memory and on disk ($TILE_CACHE_DIR, runtime/README.md); the
disk level is opened for a target at the first compile for it in a process and reads
TILE_DISABLE_CACHE then. So these switches take effect for targets this process has not
compiled for yet, which is where TileLang's programs call them (before their first kernel);
a later call says so with a warning rather than pretending."""

import os
import warnings

_compiled_targets = set()  # the targets tile.kernel.compile has compiled for in this process


def note_compile(target):
    _compiled_targets.add(target)


def _set(disabled, what):
    if _compiled_targets:
        warnings.warn(f"tilelang.{what}: this process has compiled for "
                      f"{', '.join(sorted(_compiled_targets))} already; the disk cache of a "
                      "target is opened at its first compile, so the switch applies to the "
                      "targets not compiled for yet", RuntimeWarning, stacklevel=3)
    if disabled:
        os.environ["TILE_DISABLE_CACHE"] = "1"
    else:
        os.environ.pop("TILE_DISABLE_CACHE", None)


def disable_cache():
    """Compiles without the disk cache (TileLang's)."""
    _set(True, "disable_cache()")


def enable_cache():
    """Uses the disk cache again (the default)."""
    _set(False, "enable_cache()")


def is_cache_enabled():
    """Whether compiles for targets not compiled for yet will use the disk cache (libtile
    turns it off for TILE_DISABLE_CACHE=1 exactly)."""
    return os.environ.get("TILE_DISABLE_CACHE") != "1"
