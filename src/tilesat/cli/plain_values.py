"""Command-line values without pydantic: typer 0.29 turns every value (even
an option not given) into its type through a pydantic ``TypeAdapter``, and
importing pydantic for that is a quarter of a small count's whole process.

Our options are plain ``str``, ``int``, ``float`` and ``Path`` values; the
ones written the usual way (``12``, ``-0.5``, ``1e-3``, a file name) are
converted here exactly as typer's adapters would, and any other value is
handed to typer's own coercion, so every message about a bad value stays
typer's (tests/test_startup.py compares the two on random strings).  With
typer before 0.29 (click's types, no pydantic) nothing is changed.
"""

from __future__ import annotations

import re
from pathlib import Path

_INT = re.compile(r"[+-]?[0-9]+\Z", re.ASCII)
_FLOAT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\Z", re.ASCII)


class PlainValue:
    """What typer's ``RuntimeParam`` does for one parameter of a plain type, for the usual values."""

    def __init__(self, annotation: type, info):
        self.annotation, self.info = annotation, info

    def coerce(self, value, param, ctx):
        if value is None:  # an option not given: typer's own answer, without its adapter
            return None
        converted = self._convert(value)
        if converted is not None:
            if self.annotation is not Path:
                return converted
            from typer._param_types import coerce_cli_path  # exists, readable, ...: typer's checks and messages

            try:
                return coerce_cli_path(converted, self.info, path_type=self.info.path_type or Path, param=param,
                                       ctx=ctx)
            except ValueError:  # a name os.stat refuses (a NUL): typer's adapter words it
                pass
        param._runtime_param = None  # typer's adapter from here on: its conversion, its message
        return param.get_runtime_param().coerce(value, param=param, ctx=ctx)

    def _convert(self, value):
        """The value typer's adapter would give, or None where this cannot tell."""
        kind, info = self.annotation, self.info
        if kind is str or kind is bool:  # (a flag's bool never comes here: typer keeps it as it is)
            return value if type(value) is kind else None
        if kind is Path:
            return Path(value) if type(value) is str and value else value if isinstance(value, Path) else None
        if type(value) is str:
            if not (_INT if kind is int else _FLOAT).match(value):
                return None
            number = kind(value)
        elif type(value) is kind or (kind is float and type(value) is int):  # a default
            number = kind(value)
        else:
            return None
        if (info.min is not None and number < info.min) or (info.max is not None and number > info.max):
            return None  # out of range: typer's message (or its clamp)
        return number


def without_pydantic(params: list) -> list:
    """Give the parameters of plain types (typer >= 0.29) the conversion above; others are left as they are."""
    for param in params:
        descriptor = getattr(param, "type_descriptor", None)
        if (descriptor is None or getattr(param, "_runtime_param", False) is not None
                or param.multiple or param.nargs != 1):
            continue
        info = descriptor.parameter_info
        if descriptor.annotation in (str, int, float, bool, Path) and info.parser is None and not info.clamp:
            if descriptor.annotation is Path and info.path_type not in (None, Path):
                continue
            param._runtime_param = PlainValue(descriptor.annotation, info)
    return params
