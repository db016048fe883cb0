"""Griffe extension: the docstrings' reStructuredText roles (``:class:`Board```,
``:mod:`.grids```, ``:meth:`~Board.index```) shown as code in the API pages, which
render docstrings as Markdown."""

from __future__ import annotations

import re

import griffe

ROLE = re.compile(r":(?:py:)?(?:mod|class|meth|func|attr|data|exc|obj|const):`~?([^`]+)`")


class RolesAsCode(griffe.Extension):
    def on_object(self, *, obj, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = ROLE.sub(r"`\1`", obj.docstring.value)
