"""Encodings and solvers from the user's own code, without editing tilesat.

A plugin is named wherever a built-in name goes (``--encoding``,
``--solver``, the comma lists of ``compare`` and ``fuzz``):

- ``module.path:name``: ``name`` in an importable module (the current
  directory is searched too, as ``python -m`` would);
- ``path/to/file.py:name``: ``name`` in a Python file, loaded once;
- a bare name an installed package registers under the entry-point group
  ``tilesat.encodings`` or ``tilesat.solvers`` (``pyproject.toml``:
  ``[project.entry-points."tilesat.encodings"] mine = "pkg.mod:exactly_one"``).

The protocols are the built-ins' own (``encodings/README.md``):

- an **encoding** is a function ``exactly_one(lits, top) -> (blocks, top)``:
  ``lits`` an int64 array of shape (m, n), m independent constraints
  "exactly one of these n literals"; auxiliary variables numbered from
  ``top + 1``; it returns a list of 2-D integer arrays (each row one clause
  of that width; a list of equally long lists will do) and the new top;
- a **solver** is a class (or any callable) made with no arguments whose
  objects have ``add_clause(clause)``, ``solve(assumptions=()) -> bool`` and
  ``model() -> list[int]``; ``add_formula(formula, progress=None)``,
  ``stats() -> dict`` and ``close()`` are optional.

What a plugin returns is checked (:class:`tilesat.sat.solvers.PluginSolver`,
:func:`checked_encoding`): a malformed block or a model that falsifies a
clause is an error naming the plugin, never a wrong answer from tilesat.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
import sys
from pathlib import Path

import numpy as np

from ..running.control import TimedOut
from ..running.installed import entry_points
from ..errors import TilesatError

ENCODING_GROUP = "tilesat.encodings"
SOLVER_GROUP = "tilesat.solvers"
EXTERNAL_PREFIX = "ext:"  # an external command (solvers.ExternalSolver): not a plugin spec though it has a colon


def is_spec(name: str) -> bool:
    """Whether ``name`` names a plugin by module or file (``where:attribute``)."""
    return ":" in name and not name.startswith(EXTERNAL_PREFIX)


def _is_file(where: str) -> bool:
    return where.endswith(".py") or "/" in where or os.sep in where


@functools.cache
def _load_file(path: str):
    """A Python file as a module, once per real path (a file plugin named twice is one module)."""
    import hashlib

    real = os.path.realpath(path)
    name = "tilesat_plugin_" + hashlib.sha1(real.encode()).hexdigest()[:12]
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, real)
    if spec is None or spec.loader is None:
        raise TilesatError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # before running it: dataclasses and pickling look it up
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _import(where: str):
    try:
        return importlib.import_module(where)
    except ModuleNotFoundError as e:
        if e.name != where.split(".")[0] or os.getcwd() in sys.path:
            raise
    # the tilesat script's sys.path starts at its own directory: look in the current one too
    sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(where)
    finally:
        sys.path.remove(os.getcwd())


@functools.cache
def load(spec: str, what: str):
    """The object ``spec`` (``module:name`` or ``file.py:name``) names, or a
    one-line :class:`TilesatError` saying what is wrong (``what``: "encoding"
    or "solver", for the message)."""
    where, _, attribute = spec.rpartition(":")
    if not where or not attribute:
        raise TilesatError(f"{what} {spec!r}: a plugin is MODULE:NAME or FILE.py:NAME")
    try:
        if _is_file(where):
            if not Path(where).is_file():
                raise TilesatError(f"{what} {spec!r}: no such file: {where}")
            module = _load_file(where)
        else:
            module = _import(where)
    except TilesatError:
        raise
    except ModuleNotFoundError as e:
        raise TilesatError(f"{what} {spec!r}: no module named {e.name!r}") from None
    except Exception as e:  # noqa: BLE001 - the plugin's own code failed while loading: one line
        raise TilesatError(f"{what} {spec!r}: loading {where} failed: {type(e).__name__}: {e}") from None
    obj = module
    for part in attribute.split("."):
        if not hasattr(obj, part):
            raise TilesatError(f"{what} {spec!r}: {where} has no {attribute!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise TilesatError(f"{what} {spec!r}: {attribute} is not callable")
    return obj


def entry_point_names(group: str) -> list[str]:
    """Names installed packages register under ``group``."""
    try:
        return sorted({ep.name for ep in entry_points(group)})
    except Exception:  # noqa: BLE001 - a broken installation must not break the built-ins
        return []


@functools.cache
def from_entry_point(group: str, name: str, what: str):
    """The object registered as ``name`` in ``group``, None when there is none."""
    found = [ep for ep in entry_points(group) if ep.name == name]
    if not found:
        return None
    try:
        obj = found[0].load()
    except Exception as e:  # noqa: BLE001
        raise TilesatError(f"{what} {name!r} (entry point {found[0].value}): loading failed: {type(e).__name__}: {e}") from None
    if not callable(obj):
        raise TilesatError(f"{what} {name!r} (entry point {found[0].value}): not callable")
    return obj


# --- encodings -------------------------------------------------------------

def find_encoding(name: str):
    """The plugin encoding ``name`` names (spec or entry point), None if it names none."""
    if is_spec(name):
        return checked_encoding(load(name, "encoding"), name)
    fn = from_entry_point(ENCODING_GROUP, name, "encoding")
    return None if fn is None else checked_encoding(fn, name)


@functools.cache
def checked_encoding(fn, name: str):
    """``fn`` with its answers checked: the blocks are 2-D integer arrays of
    non-zero literals within the new top, which is at least the old one."""

    def exactly_one(lits, top):
        try:
            answer = fn(lits, top)
        except (TilesatError, TimedOut):
            raise
        except Exception as e:  # noqa: BLE001 - the plugin failed: one line naming it
            raise TilesatError(f"encoding {name!r} failed: {type(e).__name__}: {e}") from None
        try:
            blocks, new_top = answer
            new_top = int(new_top)
            blocks = [np.asarray(b, dtype=np.int64) for b in blocks]
        except (TypeError, ValueError, OverflowError):
            raise TilesatError(f"encoding {name!r} must return (blocks, top): a list of 2-D integer arrays "
                               f"and the new top variable") from None
        if new_top < top:
            raise TilesatError(f"encoding {name!r} returned top {new_top}, below the {top} it was given")
        for b in blocks:
            if b.size and b.ndim != 2:
                raise TilesatError(f"encoding {name!r} returned a block of shape {b.shape}; each block is 2-D, one clause a row")
            if b.size and ((b == 0).any() or np.abs(b).max() > new_top):
                raise TilesatError(f"encoding {name!r} returned a literal that is 0 or beyond its top {new_top}")
        return [b.reshape(-1, b.shape[-1]) if b.size else b.reshape(0, 1) for b in blocks], new_top

    exactly_one.__name__ = exactly_one.__qualname__ = f"plugin:{name}"
    return exactly_one


# --- solvers ---------------------------------------------------------------

def find_solver(name: str):
    """The factory of the plugin solver ``name`` (spec or entry point), None if it names none."""
    if is_spec(name):
        return load(name, "solver")
    return from_entry_point(SOLVER_GROUP, name, "solver")
