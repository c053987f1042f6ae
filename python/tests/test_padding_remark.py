"""tile.compile warns with tile.remarks.PaddingRemark, at the kernel's own line, when a
reduction may combine the zeros a copy padded a tile with past a tensor's edge."""

import warnings

import pytest

import tile
from tile.remarks import PaddingRemark

ROW_MAX = """ir_version 3;
producer "test" "1";

kernel row_max<M: i32, N: i32>(X: f32[M, N], Y: f32[M]) grid(bx: ceildiv(M, 32)) threads(128) {
  %s
  alloc X_s: shared f32[32, 128];
  alloc acc: fragment f32[32];
  fill acc = -inf;
  for k in 0 +: ceildiv(N, 128) serial {
    copy X[bx * 32 +: 32, k * 128 +: 128] -> X_s;
    reduce max X_s -> acc {dim=1, clear=false};
  }
  copy acc -> Y[bx * 32 +: 32];
}
"""


def test_a_ragged_row_max_warns_at_the_reduce():
    module = tile.load(ROW_MAX % "", name="ragged.tile")
    with pytest.warns(PaddingRemark) as caught:
        tile.compile(module, target="cpu")
    assert len(caught) == 1
    assert caught[0].filename == "ragged.tile"
    assert caught[0].lineno == 11
    message = str(caught[0].message)
    assert "reduce max of 'X_s' along dim 1" in message
    assert "past the edge of 'X' (dim 1, size N" in message
    assert "require N % 128 == 0" in message


def test_tiles_that_divide_the_tensor_give_no_warning():
    module = tile.load(ROW_MAX % "require N % 128 == 0;", name="divides.tile")
    with warnings.catch_warnings():
        warnings.simplefilter("error", PaddingRemark)
        tile.compile(module, target="cpu")
