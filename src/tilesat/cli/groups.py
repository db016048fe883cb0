"""Groups of options that several commands share, each made into one object
before the command runs.

A command names a group as a parameter's default (``sat: SatOptions = SAT``);
:func:`with_groups` puts the group's options in its place on the command line
(same names, same help, in the same order everywhere) and hands the command
the object the group builds: :data:`SAT` the validated
:class:`~tilesat.sat.options.SatOptions`, :data:`SOURCE` the instance to load,
:func:`outputs` groups where the answer goes.  Groups are built in
the order of their ``order``: the SAT options first, so that a bad name is the
first error whatever else is wrong, as before any work.
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from ..model.instance import Instance, load_instance
from ..sat.encodings import DEFAULT_ENCODING
from ..sat.formula import DEFAULT_CARD
from ..sat.options import SatOptions
from ..sat.solvers import DEFAULT_SOLVER
from .common import (
    CardOpt, CellSizeOpt, DrawOpt, EncodingOpt, FileArg, ForceOpt, JsonOpt, PdfOpt, PiecesOpt, PngOpt, SolverOpt, SvgOpt,
    TilingOutOpt, TimeoutOpt, WrapOpt, check_draw, check_outputs,
)


@dataclass(frozen=True)
class Group:
    """Typer parameters (name -> (annotation, default)) and what builds one object of their values (a dict)."""

    options: dict[str, tuple[Any, Any]]
    build: Callable[..., Any]
    order: int = 1

    def parameters(self) -> list[inspect.Parameter]:
        return [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation,
                                  default=inspect.Parameter.empty if default is REQUIRED else default)
                for name, (annotation, default) in self.options.items()]


REQUIRED = object()


def with_groups(fn: Callable) -> Callable:
    """The command ``fn`` with each parameter whose default is a :class:`Group` spread into the
    group's options; ``fn`` is called with the object each group builds."""
    signature = inspect.signature(fn, eval_str=True)
    params, groups = [], {}
    for p in signature.parameters.values():
        if isinstance(p.default, Group):
            groups[p.name] = p.default
            params.extend(p.default.parameters())
        else:  # REQUIRED: an option without default after a group (Python wants a default there)
            default = inspect.Parameter.empty if p.default is REQUIRED else p.default
            params.append(p.replace(kind=inspect.Parameter.KEYWORD_ONLY, default=default))

    @functools.wraps(fn)
    def command(**values):
        for name, group in sorted(groups.items(), key=lambda item: item[1].order):
            values[name] = group.build({option: values.pop(option) for option in group.options})
        return fn(**values)

    command.__signature__ = signature.replace(parameters=params)
    command.__annotations__ = {p.name: p.annotation for p in params}
    del command.__wrapped__  # typer reads the signature above, not fn's
    return command


@dataclass(frozen=True)
class Source:
    """The instance file a command reads, with the header overrides given."""

    file: Path
    pieces: Optional[str] = None
    wrap: Optional[str] = None

    def load(self) -> Instance:
        return load_instance(self.file, pieces=self.pieces, wrap=self.wrap)


@dataclass(frozen=True)
class Show:
    """Where an answer goes: JSON on stdout (else text), pictures (``draw``: what
    they show, ``cell``: pixels a cell), a printable PDF."""

    json: bool = False
    svg: Optional[Path] = None
    png: Optional[Path] = None
    pdf: Optional[Path] = None
    draw: Optional[str] = None
    cell: Optional[int] = None
    out: Optional[Path] = None
    force: bool = False

    @property
    def pictures(self) -> list[Optional[Path]]:
        return [self.svg, self.png]

    def check(self, **more: Optional[Path]) -> None:
        """Before any work: --draw's value, and the outputs' paths (and ``more``, option -> path) can be written."""
        check_draw(self.draw)
        files = {**more, "--svg": self.svg, "--png": self.png}
        if self.pdf is not None:
            files["--pdf"] = self.pdf
        if self.out is not None:
            files["--out"] = self.out
        check_outputs(files, self.force)


#: The options an :func:`outputs` group may take, and the :class:`Show` field each fills.
SHOW_OPTIONS = {"as_json": ((JsonOpt, False), "json"), "svg": ((SvgOpt, None), "svg"), "png": ((PngOpt, None), "png"),
                "pdf": ((PdfOpt, None), "pdf"), "draw": ((DrawOpt, None), "draw"),
                "cell_size": ((CellSizeOpt, None), "cell"), "out": ((TilingOutOpt, None), "out"),
                "force": ((ForceOpt, False), "force")}


def outputs(*names: str, **declared: tuple[Any, Any]) -> Group:
    """A group of some of the output options (``declared``: one declared otherwise, with the command's own help)."""
    def build(values: dict) -> Show:
        return Show(**{SHOW_OPTIONS[name][1]: value for name, value in values.items()})

    return Group({name: declared.get(name, SHOW_OPTIONS[name][0]) for name in names}, build)


SAT = Group({"encoding": (EncodingOpt, DEFAULT_ENCODING), "solver": (SolverOpt, DEFAULT_SOLVER),
             "card": (CardOpt, DEFAULT_CARD), "timeout": (TimeoutOpt, None)}, lambda v: SatOptions(**v), order=0)
SOURCE = Group({"file": (FileArg, REQUIRED), "pieces": (PiecesOpt, None), "wrap": (WrapOpt, None)},
               lambda v: Source(**v))
SHOW = outputs("as_json", "svg", "png", "force")
PICTURES = outputs("svg", "png", "force")
#: generate's: pictures and the printable puzzle too.
DRAWINGS = outputs("as_json", "svg", "png", "pdf", "draw", "cell_size", "force")
#: solve's and check-unique's: generate's, and the tilings written for other tools (--out).
FOUND = outputs("as_json", "svg", "png", "pdf", "draw", "cell_size", "out", "force")
