"""Every engine by its name: one table, one way to get an engine.

The built-ins are :data:`BUILTIN` (``module:attribute``, imported on first
use); an installed package adds engines under the entry-point group
``tilesat.engines`` (``[project.entry-points."tilesat.engines"]
mine = "pkg.mod:ENGINE"``); a program adds one with :func:`register`.  The
order of the table is the order of the ``--method`` lists.
"""

from __future__ import annotations

import functools
import importlib

from ..errors import TilesatError
from ..running.installed import entry_points
from .base import QUESTIONS, Engine

#: name -> "module:attribute" of the engine object.
BUILTIN = {
    "sat": "tilesat.engines.sat:SAT",
    "sweep": "tilesat.engines.sat:SWEEP",
    "blocking": "tilesat.engines.sat:BLOCKING",
    "ganak": "tilesat.engines.model_count:GANAK",
    "approx": "tilesat.engines.model_count:APPROX",
    "dlx": "tilesat.engines.dlx:DLX",
    "native": "tilesat.engines.compiled:NATIVE",
    "pfaffian": "tilesat.engines.compiled:PFAFFIAN",
    "frontier": "tilesat.engines.compiled:FRONTIER",
    "xcc": "tilesat.engines.xcc_engine:XCC",
    "portfolio": "tilesat.engines.portfolio:PORTFOLIO",
    "lexleader": "tilesat.engines.lexleader:LEXLEADER",
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
    module, _, attribute = BUILTIN[name].partition(":")
    return getattr(importlib.import_module(module), attribute)


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


def method_names(question: str) -> tuple[str, ...]:
    """``auto`` and every engine answering the question: what ``--method`` takes."""
    return ("auto",) + tuple(engines(question))


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
