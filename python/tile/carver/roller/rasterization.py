"""TileLang's rasterization plans, as names a program compares hints against (the roller that
makes hints is not here: carver/template.py)."""


class Rasterization:
    """A block rasterization plan."""


class NoRasterization(Rasterization):
    """Blocks in launch order."""


class Rasterization2DRow(Rasterization):
    """Blocks in panels of rows (T.use_swizzle(panel_size, order="row"))."""

    def __init__(self, panel_width=8):
        self.panel_width = panel_width


class Rasterization2DColumn(Rasterization):
    """Blocks in panels of columns (T.use_swizzle(panel_size, order="col"))."""

    def __init__(self, panel_width=8):
        self.panel_width = panel_width
