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
"""

from __future__ import annotations

import numpy as np

from ..errors import TilesatError
from . import bitwise, commander, ladder, pairwise, product, seqcounter

ENCODINGS = {
    "pairwise": pairwise.exactly_one,
    "seqcounter": seqcounter.exactly_one,
    "ladder": ladder.exactly_one,
    "product": product.exactly_one,
    "commander": commander.exactly_one,
    "bitwise": bitwise.exactly_one,
}
DEFAULT_ENCODING = "commander"


def get_encoding(name: str):
    try:
        return ENCODINGS[name]
    except KeyError:
        raise TilesatError(f"unknown encoding {name!r}; choose one of: {', '.join(ENCODINGS)}") from None


def exactly_one(lits, top: int, encoding: str = DEFAULT_ENCODING) -> tuple[list[list[int]], int]:
    """One exactly-one constraint as a list of clauses (convenience API)."""
    arr = np.asarray([list(lits)], dtype=np.int64)
    if arr.shape[1] == 0:
        return [[]], top
    blocks, top = get_encoding(encoding)(arr, top)
    return [row for b in blocks for row in b.tolist()], top
