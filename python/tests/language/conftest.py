"""Puts python/examples on the path: the tests import the examples as a user's code."""

import os
import sys

ROOT = os.environ.get("TEST_SRCDIR_ROOT") or os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "python", "examples"))
