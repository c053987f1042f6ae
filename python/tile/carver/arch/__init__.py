"""The device a kernel runs on, under TileLang's carver names (tilelang.carver.arch)."""

from tile.carver.arch import driver
from tile.carver.arch.device import CDNA, CUDA, auto_infer_current_arch

__all__ = ["CDNA", "CUDA", "auto_infer_current_arch", "driver"]
