"""Every engine by its name: one table, one way to get an engine.

The built-ins are :data:`BUILTIN`: where each engine object is
(``module:attribute``, imported on first use) and what the command line
lists of it (its questions and summary), so that naming the methods and
writing their help imports no engine; an installed package adds engines
under the entry-point group ``tilesat.engines`` (``[project.entry-points."tilesat.engines"]
mine = "pkg.mod:ENGINE"``); a program adds one with :func:`register`.  The
order of the table is the order of the ``--method`` lists.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass

from ..errors import TilesatError
from ..running.installed import entry_points
from .base import QUESTIONS, Engine


@dataclass(frozen=True)
class Builtin:
    """A built-in engine as the method lists see it; its module is imported when the engine is used."""

    where: str  # "module:attribute" of the engine object
    answers: str  # its questions, space-separated (the engine's ``questions``)
    summary: str  # the engine's ``summary``

    @property
    def questions(self) -> frozenset[str]:
        return frozenset(self.answers.split())


#: name -> the built-in engine (the engine object must say the same questions and summary).
BUILTIN = {
    "sat": Builtin("tilesat.engines.sat:SAT", "find", "one SAT solver over the whole board"),
    "sweep": Builtin("tilesat.engines.sat:SWEEP", "find",
                     "SAT windows moving across the board find tilings; one SAT run proves none or unique"),
    "blocking": Builtin("tilesat.engines.sat:BLOCKING", "count list", "SAT + blocking clauses"),
    "ganak": Builtin("tilesat.engines.model_count:GANAK", "count", "exact #SAT"),
    "approx": Builtin("tilesat.engines.model_count:APPROX", "count", "ApproxMC estimate"),
    "dlx": Builtin("tilesat.engines.dlx:DLX", "find count list", "exact cover (dancing links)"),
    "native": Builtin("tilesat.engines.compiled:NATIVE", "count list", "the compiled enumerator"),
    "pfaffian": Builtin("tilesat.engines.compiled:PFAFFIAN", "count", "Kasteleyn's determinant (dominoes)"),
    "frontier": Builtin("tilesat.engines.compiled:FRONTIER", "count", "transfer-matrix DP"),
    "xcc": Builtin("tilesat.engines.xcc_engine:XCC", "find count list",
                   "the compiled exact cover (piece count ranges, every grid)"),
    "portfolio": Builtin("tilesat.engines.portfolio:PORTFOLIO", "find",
                         "N diverse SAT configurations racing, each in its own process (--jobs N)"),
    "lexleader": Builtin("tilesat.engines.lexleader:LEXLEADER", "count", "lex-leader clauses leave one tiling per "
                         "symmetry class for blocking clauses to count (--break-symmetry)"),
}

#: The entry-point group of engines from installed packages.
ENTRY_POINT_GROUP = "tilesat.engines"

_REGISTERED: dict[str, Engine] = {}


def register(engine: Engine) -> Engine:
    """Add an engine (a plugin's, a test's) under its name; a built-in name cannot be taken."""
    if engine.name in BUILTIN:
        raise TilesatError(f"engine {engine.name!r}: a built-in engine has that name")
    unknown = set(engine.questions) - set(QUESTIONS)
    if not engine.name or unknown:
        raise TilesatError(f"engine {engine.name!r}: give a name and questions among {', '.join(QUESTIONS)}")
    _REGISTERED[engine.name] = engine
    return engine


def unregister(name: str) -> None:
    _REGISTERED.pop(name, None)


@functools.cache
def _builtin(name: str) -> Engine:
    entry = BUILTIN[name]
    module, _, attribute = entry.where.partition(":")
    engine = getattr(importlib.import_module(module), attribute)
    if (engine.name, engine.questions, engine.summary) != (name, entry.questions, entry.summary):
        raise AssertionError(f"BUG: engine {name!r} says other questions or another summary than registry.BUILTIN")
    return engine


@functools.cache
def _installed() -> dict[str, Engine]:
    found = {}
    try:
        points = entry_points(ENTRY_POINT_GROUP)
    except Exception:  # noqa: BLE001 - a broken installation must not break the built-ins
        return found
    for point in points:
        if point.name in BUILTIN:
            continue
        try:
            engine = point.load()
        except Exception as e:  # noqa: BLE001 - the plugin's own code failed: one line
            raise TilesatError(f"engine {point.name!r} (entry point {point.value}): loading failed: "
                               f"{type(e).__name__}: {e}") from None
        if not isinstance(engine, Engine):
            raise TilesatError(f"engine {point.name!r} (entry point {point.value}): not a tilesat.engines.base.Engine")
        found[point.name] = engine
    return found


def plugins() -> dict[str, Engine]:
    """The engines beyond the built-ins: installed, then registered."""
    return {**_installed(), **_REGISTERED}


def get_engine(name: str) -> Engine:
    if name in BUILTIN:
        return _builtin(name)
    engine = plugins().get(name)
    if engine is None:
        raise TilesatError(f"unknown method {name!r}")
    return engine


def engines(question: str | None = None) -> dict[str, Engine]:
    """The engines (answering ``question``), in the order of the ``--method`` lists."""
    every = {name: _builtin(name) for name in BUILTIN} | plugins()
    return {name: e for name, e in every.items() if question is None or question in e.questions}


def summaries(question: str) -> dict[str, str]:
    """Each engine answering the question, with its summary, in the order of the
    ``--method`` lists (no built-in engine's module imported)."""
    builtin = {name: entry.summary for name, entry in BUILTIN.items() if question in entry.questions}
    return builtin | {name: e.summary for name, e in plugins().items() if question in e.questions}


def method_names(question: str) -> tuple[str, ...]:
    """``auto`` and every engine answering the question: what ``--method`` takes."""
    return ("auto",) + tuple(summaries(question))


def engine_for(question: str, method: str, what: str) -> Engine:
    """The engine ``--method`` names for the question, or one line naming the choices (``what``: the message's words)."""
    names = method_names(question)
    if method not in names:
        raise TilesatError(f"unknown {what} {method!r}; choose one of: {', '.join(names)}")
    return get_engine(method)


def check_takes(engine: Engine, instance, question: str) -> None:
    """One line when the engine cannot take the instance (``--method X: why; use Y``)."""
    problem = engine.problem(instance)
    if problem is not None:
        instead = engine.instead.get(question)
        raise TilesatError(f"--method {engine.name}: {problem}" + (f"; use {instead}" if instead else ""))
