"""TileLang's tilelang.layout: the layout constructors of tile.language (T.Layout, T.Fragment,
T.make_swizzled_layout), under the module TileLang programs import them from."""

from tile.language.layouts import Fragment, Layout, make_swizzled_layout

__all__ = ["Fragment", "Layout", "make_swizzled_layout"]
