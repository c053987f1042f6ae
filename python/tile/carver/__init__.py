"""TileLang's tilelang.carver, as far as its example programs use it: the device's facts
(`carver.arch.driver.get_num_sms()`, `carver.arch.CUDA`), so that a program sizing a
persistent grid by the SM count runs here. TileLang's roller (MatmulTemplate.recommend_hints,
a hardware-aware generator of tile configs) is not here: it raises NotImplementedError naming
what to use instead (tile.autotune over explicit configs)."""
