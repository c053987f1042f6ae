"""The tile package's version: the one place it is written (scripts/build_wheel.sh names the
wheel after it, python/packaging/make_wheel.py writes it into the wheel's metadata)."""

__version__ = "0.1.0"
