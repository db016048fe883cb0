"""How instances, tilings and results show themselves in a notebook: their
``_repr_svg_`` and ``_repr_html_`` (the methods Jupyter and IPython call)
hand over to :mod:`tilesat.showing.notebook`, which draws them.

That module is named here as a string and imported on the first display
(as the engines' registry names its built-ins): the model never imports the
layers above it, and ``import tilesat`` stays free of drawing code.
"""

from __future__ import annotations

import importlib

#: The module whose functions draw each kind of object for a notebook.
RENDERER = "tilesat.showing.notebook"


def show(kind: str, obj) -> str:
    """``RENDERER.kind(obj)``: the SVG or HTML text of ``obj``."""
    return getattr(importlib.import_module(RENDERER), kind)(obj)
