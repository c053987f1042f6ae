"""Where a clone's Bazel outputs are. `bazel-bin` points at the outputs of the last build's
configuration, so after `bazel test //...` (fastbuild) it no longer shows the `-c opt` outputs
the README builds the package's libtile and schema module with (issue 45: switching modes
"moved bazel-bin under the package"). Both configurations' folders are looked in, the newer
file first."""

import glob
import os

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def built(*parts):
    """The newest of `bazel-bin/PARTS` and `bazel-out/*/bin/PARTS` in the clone this package
    lives in, or `bazel-bin/PARTS` (for the error message) when none exists."""
    relative = os.path.join(*parts)
    candidates = [os.path.join(_ROOT, "bazel-bin", relative)] + sorted(
        glob.glob(os.path.join(_ROOT, "bazel-out", "*", "bin", relative)))
    existing = [c for c in candidates if os.path.exists(c)]
    if not existing:
        return candidates[0]
    return max(existing, key=os.path.getmtime)
