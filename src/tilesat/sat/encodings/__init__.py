"""Exactly-one encodings, in a registry.

Each encoding is a module with one function::

    exactly_one(lits, top) -> (blocks, top)

``lits`` is an integer array of shape ``(m, n)``: m independent constraints
"exactly one of these n literals", encoded together (numpy, one array
operation per clause pattern, so a board's 10^5 cells cost a few calls).
Auxiliary variables are numbered from ``top + 1``; the new top is returned.
``blocks`` is a list of 2-D arrays, each row one clause of that width.

Adding an encoding: write the module, add one line to ``ENCODINGS``, and a
note in the repository's ``encodings/`` folder (its sizes are tested).
Without editing tilesat: a plugin (:mod:`tilesat.sat.plugins`), named as
``module:function`` or ``file.py:function`` wherever an encoding's name goes,
or registered by an installed package under the entry-point group
``tilesat.encodings``; ``encodings/README.md`` shows how.

``auto`` (the default) is not an encoding but a choice made per instance by
:func:`choose_encoding`, from how many placements compete for a cell.
"""

from __future__ import annotations

import numpy as np

from .. import plugins
from ...errors import TilesatError, did_you_mean
from . import bitwise, commander, ladder, native, pairwise, product, seqcounter

ENCODINGS = {
    "pairwise": pairwise.exactly_one,
    "seqcounter": seqcounter.exactly_one,
    "ladder": ladder.exactly_one,
    "product": product.exactly_one,
    "commander": commander.exactly_one,
    "bitwise": bitwise.exactly_one,
    # not CNF: at-most-one constraints for solvers that take them (native.py);
    # its exactly_one is the CNF it expands to where clauses are needed
    "native": native.exactly_one,
}
#: Encodings whose formulas keep at-most constraints beside the clauses (Formula.atmost).
NATIVE_ENCODINGS = {"native"}
AUTO = "auto"
DEFAULT_ENCODING = AUTO

#: ``auto`` picks pairwise when the average open cell has at most this many
#: candidate placements, else commander: on tight boards the time goes into
#: building and loading the formula, and pairwise is the smallest; from about 10
#: candidates CaDiCaL needs commander's auxiliary variables to search well
#: (docs/benchmarks/encodings.md).
AUTO_PAIRWISE_UP_TO = 9.0
#: ... and ladder on open boards (random packings: 24-38 candidates a cell), where
#: CaDiCaL also gets its --sat options (solvers.default_options): the fastest and
#: steadiest there (docs/benchmarks/hard-boards.md).  Pentomino puzzles (100+) keep commander.
AUTO_LADDER_BAND = (20.0, 60.0)


def encoding_names() -> list[str]:
    """The built-in encodings, then those installed packages register (``all`` in compare and fuzz)."""
    return list(ENCODINGS) + [n for n in plugins.entry_point_names(plugins.ENCODING_GROUP) if n not in ENCODINGS]


def check_encoding(name: str) -> str:
    """``name`` if it is an encoding (built-in or plugin) or ``auto``; a clear error if not."""
    if name == AUTO or name in ENCODINGS:
        return name
    if plugins.find_encoding(name) is None:
        raise TilesatError(f"unknown encoding {name!r}{did_you_mean(name, [AUTO] + encoding_names())}; choose one of: {', '.join([AUTO] + encoding_names())}, "
                           f"or a plugin MODULE:FUNCTION or FILE.py:FUNCTION")
    return name


def choose_encoding(mean_candidates: float) -> str:
    """The encoding ``auto`` stands for, given the average number of literals
    per exactly-one constraint (placements per open cell)."""
    # never native: it needs a solver with native constraints, and was not
    # measured better than pairwise on the default solver (docs/benchmarks/encodings.md)
    if mean_candidates <= AUTO_PAIRWISE_UP_TO:
        return "pairwise"
    lo, hi = AUTO_LADDER_BAND
    return "ladder" if lo < mean_candidates <= hi else "commander"


def get_encoding(name: str):
    """The ``exactly_one`` function of a named encoding (``auto`` is resolved
    per instance by :func:`tilesat.sat.formula.compile_formula`, not here)."""
    if check_encoding(name) == AUTO:
        raise TilesatError("encoding 'auto' depends on the instance: resolve it with choose_encoding()")
    return ENCODINGS[name] if name in ENCODINGS else plugins.find_encoding(name)


def exactly_one(lits, top: int, encoding: str = DEFAULT_ENCODING) -> tuple[list[list[int]], int]:
    """One exactly-one constraint as a list of clauses (convenience API)."""
    arr = np.asarray([list(lits)], dtype=np.int64)
    if arr.shape[1] == 0:
        return [[]], top
    if encoding == AUTO:
        encoding = choose_encoding(arr.shape[1])
    blocks, top = get_encoding(encoding)(arr, top)
    return [row for b in blocks for row in b.tolist()], top
