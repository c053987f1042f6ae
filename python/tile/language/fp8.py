"""TileLang's tilelang.language.fp8: the float8 dtype a platform computes in.

The IR's float8 formats are OCP's e4m3 (torch's float8_e4m3fn) and e5m2 on every target. ROCm
before gfx950 has the FNUZ variants natively, which the IR does not have: there, too, these
functions name the OCP formats (the HIP target converts in software), so a program that makes
its torch tensors with determine_torch_fp8_type stays consistent with its kernel."""

from tile.language import dtypes


def determine_fp8_type(fp8_format="e4m3"):
    """T.float8_e4m3fn for "e4m3", T.float8_e5m2 for "e5m2" (the module doc says why ROCm gets
    them too)."""
    if fp8_format not in ("e4m3", "e5m2"):
        raise ValueError(f"determine_fp8_type: unknown FP8 format {fp8_format!r} (e4m3 or e5m2)")
    return dtypes.BY_NAME["float8_e4m3fn" if fp8_format == "e4m3" else "float8_e5m2"]


def determine_torch_fp8_type(fp8_format="e4m3"):
    """The torch dtype of determine_fp8_type(fp8_format)."""
    import torch  # pylint: disable=import-outside-toplevel
    return getattr(torch, str.__str__(determine_fp8_type(fp8_format)))


__all__ = ["determine_fp8_type", "determine_torch_fp8_type"]
