"""TileLang's tilelang.utils: tensor helpers (tile.utils.tensor)."""

from tile.utils.tensor import (TensorSupplyType, assert_allclose, get_tensor_supply,
                               torch_assert_close)

__all__ = ["TensorSupplyType", "assert_allclose", "get_tensor_supply", "torch_assert_close"]
