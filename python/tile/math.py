"""TileLang's tilelang.math helpers on Python ints (compile-time values)."""


def cdiv(a, b):
    """ceil(a / b) for ints."""
    return -(-a // b)


def next_power_of_2(x):
    """The least power of two >= x (1 for x <= 1)."""
    return 1 if x <= 1 else 1 << (int(x) - 1).bit_length()


def prev_power_of_2(x):
    """The greatest power of two <= x (x >= 1)."""
    return 1 << (int(x).bit_length() - 1)
