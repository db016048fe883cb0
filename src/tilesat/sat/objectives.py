"""The packing formula and its objective: the tiling formula with an "empty"
variable per open cell (each cell covered at most once), and what to
maximise as a number of true *cost* literals to minimise (see
:mod:`tilesat.questions.pack` for the search that maximises it).

- ``cells``: the empty cells (covered cells = area - empty);
- ``pieces`` when every allowed piece has the same size s: the empty cells
  too (pieces = (area - empty) / s).  A cardinality constraint over the
  open cells is far smaller than one over all placements;
- ``pieces`` with mixed sizes: the placements left out (pieces = P - cost).
"""

from __future__ import annotations

from dataclasses import dataclass

from .encodings import DEFAULT_ENCODING, check_encoding
from ..errors import TilesatError
from .formula import DEFAULT_CARD, Formula, check_card_name, compile_formula
from ..model.instance import Instance
from ..model.placements import generate_placements
from .symbreak import symmetry_breaking
from ..model.tiling import Tiling

OBJECTIVES = ("pieces", "cells")


@dataclass
class Objective:
    """What to maximise, as "minimise the number of true ``cost`` literals"."""

    name: str
    cost: list[int]  # literals; each true one costs 1
    total: int  # the value when the cost is 0
    step: int  # value = (total - cost) // step

    def value(self, cost: int) -> int:
        return (self.total - cost) // self.step

    def cost_bound(self, value: int) -> int:
        """The largest cost of a packing worth at least ``value`` (negative: none can be)."""
        return self.total - self.step * value

    def value_of(self, tiling: Tiling) -> int:
        if self.name == "cells":
            return sum(len(t.cells) for t in tiling)
        return len(tiling)


def objective_for(formula: Formula, name: str) -> Objective:
    if name not in OBJECTIVES:
        raise TilesatError(f"unknown objective {name!r}; use {' or '.join(OBJECTIVES)}")
    instance = formula.placements.instance
    area = instance.board.area
    empty = formula.empty_vars.tolist()
    sizes = {r.piece.size for r in instance.rules if r.max > 0}
    if name == "cells":
        return Objective(name, empty, area, 1)
    if len(sizes) == 1:
        return Objective(name, empty, area, sizes.pop())
    P = len(formula.placements)
    return Objective(name, [-(i + 1) for i in range(P)], P, 1)


def compile_packing(instance: Instance, objective: str = "pieces", encoding: str = DEFAULT_ENCODING,
                    card: str = DEFAULT_CARD) -> tuple[Formula, Objective]:
    check_encoding(encoding)
    check_card_name(card)
    placements = generate_placements(instance)
    formula = compile_formula(placements, encoding, card, allow_empty=True)
    return formula, objective_for(formula, objective)


def _compile_broken(instance: Instance, objective: str, encoding: str, card: str, break_symmetry: bool):
    """compile_packing, plus lex-leader clauses for the board's symmetries
    when asked (:mod:`tilesat.sat.symbreak`: a symmetry maps packings onto packings
    of the same value, so the optimum stays exact); and what was broken."""
    formula, goal = compile_packing(instance, objective, encoding, card)
    if not break_symmetry:
        return formula, goal, None
    formula, breaking = symmetry_breaking(formula)
    return formula, goal, breaking


def better_than(formula: Formula, objective: Objective, value: int, card: str = DEFAULT_CARD) -> list[list[int]]:
    """Clauses saying "a packing worth more than ``value``" (cost at most
    the bound), auxiliaries after the formula's variables; ``[[]]`` when no
    packing can be worth that much."""
    bound = objective.cost_bound(value + 1)
    if bound < 0:
        return [[]]
    if bound >= len(objective.cost):
        return []
    from pysat.card import CardEnc, EncType  # (pack's: importing the engines for a count needs none)

    enc = CardEnc.atmost(lits=objective.cost, bound=bound, top_id=formula.top, encoding=getattr(EncType, card))
    return enc.clauses
