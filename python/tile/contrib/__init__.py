"""TileLang's tilelang.contrib, as far as its example programs use it (contrib.nvcc's device
query)."""
