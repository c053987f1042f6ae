"""TileLang's T.im2col(img, col, nhw_step, c_step, kernel, stride, dilation, pad): a block of
the im2col matrix of an NHWC image gathered into a tile, for convolution as a GEMM.

Row m = nhw_step * block_M + i of the matrix is output pixel (n, oh, ow) of the image's
N * OH * OW; column k = c_step * block_K + j is filter tap (kh, kw, c), c fastest (the order of a
(KH, KW, C, F) filter read as (KH * KW * C, F)). The element is img[n, oh * stride + kh *
dilation - pad, ow * stride + kw * dilation - pad, c], zero where that falls in the padding or
past the matrix. It is traced as a T.Parallel loop with a branch, so every target lowers it as
it lowers any element-wise loop (no IR construct of its own)."""

import numbers

from tile.language import control
from tile.language.buffers import Access, Buffer, check_owner
from tile.language.builder import statement_site


def im2col(img, col, nhw_step, c_step, kernel, stride=1, dilation=1, pad=0,
           eviction_policy=None, annotations=None):
    """TileLang's T.im2col (the module doc gives its meaning); eviction_policy is a cache hint
    that changes no value."""
    what = "T.im2col"
    builder, _ = statement_site(what)
    del eviction_policy
    if annotations:
        raise builder.fail(NotImplementedError, what, f"annotations {annotations!r}: the IR's "
                           "loops carry no annotations")
    if not isinstance(img, Buffer) or img.ndim != 4:
        raise builder.fail(TypeError, what, "img is a 4-D (N, H, W, C) buffer")
    check_owner(builder, img, what)
    for name, value in (("kernel", kernel), ("stride", stride), ("dilation", dilation),
                        ("pad", pad)):
        least = 0 if name == "pad" else 1
        if not isinstance(value, numbers.Integral) or value < least:
            raise builder.fail(ValueError, what, f"{name} is a Python int of at least {least}, "
                               f"not {value!r}")
    target, rows, cols = _tile(builder, col, what)
    batch, height, width, channels = img.shape
    out_h = (height + 2 * pad - (kernel - 1) * dilation - 1) // stride + 1
    out_w = (width + 2 * pad - (kernel - 1) * dilation - 1) // stride + 1
    for i, j in control.Parallel(rows, cols):
        m = nhw_step * rows + i
        k = c_step * cols + j
        n = m // (out_h * out_w)
        h = (m % (out_h * out_w)) // out_w * stride + k // (kernel * channels) * dilation - pad
        w = m % out_w * stride + (k // channels) % kernel * dilation - pad
        inside = (n < batch) & (k < kernel * kernel * channels) & (h >= 0) & (h < height) & (
            w >= 0) & (w < width)
        with control.If(inside):
            target(i, j).store(img[n, h, w, k % channels])
        with control.Else():
            target(i, j).store(0)


def _tile(builder, col, what):
    """How to address element (i, j) of the destination tile (a buffer or a region whose last
    two extents are the tile's), and those two extents as Python ints."""
    if isinstance(col, Buffer):
        col = col[tuple(slice(None) for _ in range(col.ndim))]
    if not isinstance(col, Access) or col.buffer.ndim < 2:
        raise builder.fail(TypeError, what, "col is a buffer (or a region) of at least 2 "
                           "dimensions")
    check_owner(builder, col.buffer, what)
    items = col.items if not col.is_point else [(m, None) for m, _ in col.items]
    extents = []
    for d in (-2, -1):
        extent = items[d][1]
        if extent is None:
            extent = col.buffer._shape[d]  # pylint: disable=protected-access
        value = extent.literal_value() if hasattr(extent, "literal_value") else extent
        if value is None:
            raise builder.fail(ValueError, what, f"the tile's extent {d + 2} is not a constant")
        extents.append(int(value))
    mins = [m for m, _ in items]

    def element(i, j):
        return Access(col.buffer, tuple(mins[:-2]) + (mins[-2] + i, mins[-1] + j))
    return element, extents[0], extents[1]
