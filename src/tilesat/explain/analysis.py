"""explain: where a board is ambiguous, what makes it unique, where it fails.

One run, in stages, each under the run's deadline; a stage cut short by the
time limit or Ctrl-C leaves what it had, labelled (``stopped``):

1. the first tiling (none: the failing region, :mod:`.failing`, and the
   certificate when the LP finds one);
2. the backbone (:mod:`.backbone`): the tiles in every tiling, and so the
   settled cells; a model that leaves out a first-tiling tile is a second
   tiling (``multiple``), a complete backbone covering the board means ``unique``;
3. the ambiguous regions (:mod:`.regions`) and the ways to fill each;
4. repairs (:mod:`.repair`): the fewest clues, and cells to block, each
   checked by :func:`tilesat.questions.solve.check_unique` on the edited board before
   it is shown; on a unique board, the blocked cells that could be opened.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..model.board import Board
from ..errors import TilesatError
from ..certify.certificate import Certificate, lp_estimate, lp_gate, quick_check
from ..certify.checks import _sums_bitset, obstruction
from ..running.control import TimedOut, deadline, time_limit
from ..questions.count import count_tilings
from ..sat.formula import compile_formula
from ..model.instance import INF, Instance, PieceRule
from ..model.footprint import check_memory
from ..model.placements import Placements, generate_placements
from ..questions.solve import check_unique
from ..model.tiling import Tile, Tiling
from ..certify.verify import verify_tiling
from .backbone import DEFAULT_METHOD, Backbone
from .failing import FailingRegion, failing_region
from .openings import openings as find_openings
from .regions import Region, SubBoard, adjusted_rules, find_regions, linking_rules, sub_board, unsettled_mask
from .repair import ClueRepair, RegionSolver, minimum_clues, single_blocks
from .solver import DEFAULT as DEFAULT_SOLVER, AssumingSolver

#: How many repairs (and openings) are shown by default.
REPAIRS = 3
#: A region with at most this many tilings is counted by listing them; beyond, by count's own methods.
LISTED = 200
#: ... and for at most this long (seconds): a big region's tilings come slowly, and count's methods do better.
LISTING_SECONDS = 0.5
#: The big regions' counts take at most this long in all (seconds); then their ways are lower bounds.
COUNT_SECONDS = 10.0
#: The LP certificate's time: this many times its estimate, at least LP_MIN_SECONDS (check-unique's caps).
LP_TIMES, LP_MIN_SECONDS = 20, 2.0
#: The failing cells' search when a quick check or a certificate already says why there is no tiling.
FAILING_SECONDS = 5.0
#: Without --timeout, the hitting-set loops (the proofs that repairs are the fewest) take at most this long in all.
REPAIR_SECONDS = 20.0


@dataclass
class Suggestion:
    """An edit of the board that leaves exactly one tiling (or, ``open``, keeps it unique).

    ``clues``: tiles printed on the board (the solver must use them); ``block``:
    cells to make black; ``open``: black cells to open.  ``size`` counts the
    edits (tiles for clues, cells otherwise); ``minimum`` says it is proven
    the fewest of its kind, else it is the best found (``lower_bound``: the
    fewest there could be, as far as the search got)."""

    kind: str
    size: int
    minimum: bool
    tiles: list[Tile] = field(default_factory=list)
    cells: list[tuple] = field(default_factory=list)
    lower_bound: int | None = None
    checked: str | None = None  # check-unique's verdict on the edited board
    tiling: Tiling | None = None  # its one tiling, clue tiles included (verified)

    def drawn_on(self, instance: Instance) -> Instance:
        """The board :attr:`tiling` tiles: the instance itself for clues, else the edited board."""
        return instance if self.kind == "clues" else self.edited(instance)

    def edited(self, instance: Instance) -> Instance:
        """The board this suggestion makes, as an instance check-unique can read:
        clue tiles are blacked out with their pieces taken off the counts."""
        board = instance.board
        mask = board.open.copy()
        if self.kind == "open":
            for cell in self.cells:
                mask[cell] = True
            return Instance(Board(mask, board.wrap, board.grid), instance.rules, instance.shapes, instance.source)
        cells = self.cells if self.kind == "block" else [c for t in self.tiles for c in t.cells]
        for cell in cells:
            mask[cell] = False
        rules = instance.rules
        if self.kind == "clues":
            used = {r.name: 0 for r in rules}
            for t in self.tiles:
                used[t.piece] += 1
            rules = tuple(PieceRule(r.piece, r.orient, max(0, r.min - used[r.name]),
                                    r.max if r.max == INF else r.max - used[r.name]) for r in rules)
        return Instance(Board(mask, board.wrap, board.grid), rules, instance.shapes, instance.source)

    def to_json(self) -> dict:
        return {"kind": self.kind, "size": self.size, "minimum": self.minimum, "lower_bound": self.lower_bound,
                "tiles": [{"piece": t.piece, "cells": [list(c) for c in t.cells]} for t in self.tiles],
                "cells": [list(c) for c in self.cells], "checked": self.checked}


@dataclass
class Explanation:
    instance: Instance
    verdict: str = "unknown"  # unique, multiple, none, unknown
    stopped: str | None = None  # "timeout" or "interrupted": what follows is what was found before
    tilings: list[Tiling] = field(default_factory=list)  # verified: the first, and a second one when multiple
    settled: list[Tile] = field(default_factory=list)  # the backbone: tiles in every tiling
    backbone_complete: bool = False
    undecided: list[Tile] = field(default_factory=list)  # first-tiling tiles not decided yet (partial backbone)
    regions: list[Region] = field(default_factory=list)
    linking: list[str] = field(default_factory=list)  # counted pieces linking the regions (not independent)
    count: int | None = None  # tilings of the board, from the regions' counts
    count_exact: bool = False
    repairs: list[Suggestion] = field(default_factory=list)
    repairs_complete: bool = False
    openings: list[Suggestion] = field(default_factory=list)
    openings_note: str | None = None
    failing: FailingRegion | None = None
    reason: str | None = None
    certificate: Certificate | None = None
    stats: dict = field(default_factory=dict)

    @property
    def independent(self) -> bool:
        return not self.linking

    def cells(self, flat) -> list[tuple]:
        return self.instance.board.cells(np.asarray(flat, dtype=np.int64))

    @property
    def unsettled(self) -> int:
        return int(sum(r.cells.size for r in self.regions))


def explain(instance: Instance, *, repairs: int = REPAIRS, solver: str = DEFAULT_SOLVER,
            backbone_method: str = DEFAULT_METHOD, timeout: float | None = None,
            progress: Callable[[str], None] | None = None, count: bool = True, openings: bool = True) -> Explanation:
    """Explain the instance's tilings (see the module's docstring); never raises for the
    time limit or Ctrl-C: the explanation then says where it stopped (``stopped``).
    Boards with optional cells or colours are one line (:class:`TilesatError`): its regions,
    repairs and failing cores are built for exact covers of plain cells."""
    if not instance.plain:
        raise TilesatError("explain takes boards whose open cells must all be covered, without colours: "
                           "this one has cells that may stay empty (+) or colours (solve, check-unique and count take it)")
    say = progress or (lambda message: None)
    out = Explanation(instance)
    t0 = time.perf_counter()
    stages: dict[str, float] = {}
    run = _Run(instance, out, solver, say, stages)
    try:
        with time_limit(timeout):
            run.start()
            if out.verdict == "none":
                run.fails()
            else:
                run.backbone(backbone_method)
                run.regions()
                if out.verdict == "multiple":
                    # the small regions' ways, then the repairs, then the big regions' ways: a huge
                    # region's count may take long, and must not keep the repairs from being found
                    if count:
                        run.count(listing=True)
                    if repairs:
                        run.repairs(repairs)
                    if count:
                        run.count(listing=False)
                elif out.verdict == "unique" and openings and repairs:
                    run.openings(repairs)
    except TimedOut:
        out.stopped = "timeout"
    except KeyboardInterrupt:
        out.stopped = "interrupted"
    finally:
        run.close()
    if out.stopped and run.backbone_state is not None and not out.regions:
        run.regions()  # the cells not proven settled so far: quick, and no solver involved
    out.stats.update(seconds=round(time.perf_counter() - t0, 6), stages={k: round(v, 6) for k, v in stages.items()},
                     solver=solver, backbone_method=backbone_method, timeout=timeout)
    return out


class _Run:
    """The stages of one explanation, sharing the board's placements and solver."""

    def __init__(self, instance: Instance, out: Explanation, solver: str, say, stages: dict):
        self.instance, self.out, self.solver_name, self.say, self.stages = instance, out, solver, say, stages
        self.placements: Placements | None = None
        self.solver: AssumingSolver | None = None
        self.backbone_state: Backbone | None = None
        self.owner: np.ndarray | None = None
        self.groups: list[tuple[list[int], SubBoard]] = []  # (region indices, their board) counted and repaired together
        self._solvers: list[RegionSolver] | None = None
        self._counts: list[list] = []  # per group: [tilings, exact, how]

    @contextlib.contextmanager
    def _stage(self, name: str):
        """Say the stage (progress) and add its time to ``stats["stages"]``, also when it is cut short."""
        t0 = time.perf_counter()
        self.say(name)
        try:
            yield
        finally:
            self.stages[name] = self.stages.get(name, 0.0) + time.perf_counter() - t0

    def close(self) -> None:
        if self.solver is not None:
            self.solver.close()
        for region in self._solvers or []:
            region.close()

    # -- 1: the first tiling -------------------------------------------------------------

    def start(self) -> None:
        """The first tiling, or "none": the quick checks, then the solver; where the LP may
        pay (``lp_gate``), the solver first for as long as the LP is expected to take, then
        the LP, then the solver again (check-unique's order, ``tilesat.certify.schedule.LpBudget``)."""
        instance, out = self.instance, self.out
        with self._stage("compiling"):
            check_memory(instance)
            self.placements = generate_placements(instance)
            formula = compile_formula(self.placements, "auto")
            out.stats.update(placements=len(self.placements), variables=formula.nvars, clauses=formula.nclauses,
                             encoding=formula.encoding)
            self.solver = AssumingSolver(formula, self.solver_name)
            out.reason = obstruction(instance, self.placements)
        if out.reason is not None:
            out.verdict = "none"
            return
        sat = None
        worth, _ = lp_gate(self.placements)
        with self._stage("first tiling"):
            if worth:
                sat = self._within(lp_estimate(self.placements), self.solver.solve)
        if sat is None and worth:
            with self._stage("certificate"):
                out.certificate = self._within(max(LP_MIN_SECONDS, LP_TIMES * lp_estimate(self.placements)),
                                               lambda: quick_check(instance, self.placements, gated=True))
            if out.certificate is not None:
                out.reason = out.certificate.sentence()
                out.verdict = "none"
                return
        if sat is None:
            with self._stage("first tiling"):
                sat = self.solver.solve()
        if not sat:
            out.verdict = "none"
            return
        first = np.flatnonzero(self.solver.true_set(len(self.placements)))
        out.tilings.append(verify_tiling(instance, Tiling.from_placements(self.placements, first)))
        self.first = first

    def _within(self, seconds: float, work):
        """``work()``, or None when ``seconds`` pass first (the run's own deadline still raises)."""
        outer = deadline()
        try:
            with time_limit(max(0.01, seconds)):
                return work()
        except TimedOut:
            if outer.expired():
                raise
            return None

    def fails(self) -> None:
        """The certificate, where the LP may find one and none was looked for yet; the failing
        cells, for at most FAILING_SECONDS when a reason or certificate already says why (the
        packing formula can be as hard as the board's own)."""
        out, instance = self.out, self.instance
        if out.reason is None and lp_gate(self.placements)[0]:
            with self._stage("certificate"):  # the solver said none; a certificate also says why
                out.certificate = self._within(max(LP_MIN_SECONDS, LP_TIMES * lp_estimate(self.placements)),
                                               lambda: quick_check(instance, self.placements, gated=True))
                if out.certificate is not None:
                    out.reason = out.certificate.sentence()
        with self._stage("failing region"):
            work = lambda: failing_region(instance, self.placements, self.solver_name)  # noqa: E731
            out.failing = work() if out.reason is None else self._within(FAILING_SECONDS, work)
            if out.failing is None:
                out.stats["failing_region"] = f"not found within {FAILING_SECONDS:g} s"

    # -- 2: the backbone -----------------------------------------------------------------

    def backbone(self, method: str) -> None:
        out = self.out
        state = self.backbone_state = Backbone(self.solver, self.placements, self.first,
                                               lambda message: self.say(message))
        try:
            with self._stage("backbone"):
                state.run(method)
        finally:
            out.stats["backbone"] = {"method": method, "questions": state.calls, "models": state.models,
                                     "seconds": round(state.seconds, 6)}
            out.settled = list(Tiling.from_placements(self.placements, sorted(state.proven)).tiles)
            out.undecided = list(Tiling.from_placements(self.placements, state.candidates).tiles)
            out.backbone_complete = state.complete
            if state.second is not None:
                second = Tiling.from_placements(self.placements, state.second)
                out.tilings.append(verify_tiling(self.instance, second))
                out.verdict = "multiple"
        if state.complete and out.verdict != "multiple":
            out.verdict = "unique"

    # -- 3: the regions ------------------------------------------------------------------

    def regions(self) -> None:
        out, instance, placements = self.out, self.instance, self.placements
        state = self.backbone_state
        proven = state.proven  # a partial backbone: the regions are the cells not proven settled so far
        unsettled = unsettled_mask(placements, proven)
        regions, self.owner = find_regions(placements, unsettled)
        out.regions = regions
        for i, r in enumerate(regions):
            r.label = _label(i)
        if not state.complete or out.verdict != "multiple":
            return
        rules = adjusted_rules(instance, placements, proven)
        out.linking = linking_rules(rules, placements, self.owner)
        if out.linking:  # counted together, as one board
            self.groups = [(list(range(len(regions))), sub_board(instance, np.flatnonzero(unsettled), rules))]
        else:
            for i, r in enumerate(regions):
                # a counted piece reaching this region alone keeps its (adjusted) count here;
                # a piece with no placement here gets none (max 0), whatever its count
                here = set(placements.rule[self.owner == i].tolist())
                own = [rule if k in here else PieceRule(rule.piece, rule.orient, 0, 0) for k, rule in enumerate(rules)]
                self.groups.append(([i], sub_board(instance, r.cells, own)))
        self._counts = [[0, False, ""] for _ in self.groups]

    def count(self, listing: bool) -> None:
        """Each group's tilings: with ``listing``, listed up to LISTED (small regions: no
        counter to start); else, for the groups with more, counted by tilesat's counters
        (``count_tilings``, its method chosen as count's), for COUNT_SECONDS in all: then the
        ways are a lower bound (``tilesat count`` on the region's board counts them to the end)."""
        out = self.out
        t0, budget = time.perf_counter(), COUNT_SECONDS
        with self._stage("counting"):
            for (members, sub), region, known in zip(self.groups, self.solvers(), self._counts):
                if listing:
                    known[:] = [*region.count(LISTED, LISTING_SECONDS), "listed"]
                elif not known[1]:
                    outer = deadline()
                    with time_limit(max(0.01, budget - (time.perf_counter() - t0))):
                        result = count_tilings(sub.instance, certificates=False)
                    if result.interrupted:
                        raise KeyboardInterrupt
                    how = f"count --method {result.method}" + ("" if result.exact else f", stopped after {COUNT_SECONDS:g} s")
                    known[:] = [max(known[0], result.count), result.exact, how]
                    if result.timed_out and outer.expired():
                        self._show_count(members, known)
                        raise TimedOut()
                self._show_count(members, known)
        if all(known[1] for known in self._counts):
            out.count, out.count_exact = int(np.prod([k[0] for k in self._counts], dtype=object)), True

    def _show_count(self, members, known) -> None:
        if len(members) == 1:
            r = self.out.regions[members[0]]
            r.ways, r.exact, r.how = known

    def solvers(self) -> list[RegionSolver]:
        """One solver per group, made on first use (counting and repairs share them)."""
        if self._solvers is None:
            self._solvers = []
            for _, sub in self.groups:
                self._solvers.append(RegionSolver(sub, self.solver_name))
        return self._solvers

    # -- 4: repairs ----------------------------------------------------------------------

    def repairs(self, wanted: int) -> None:
        found: list[tuple[SubBoard, RegionSolver, ClueRepair]] = []
        try:
            with self._stage("repairs"):
                limit = deadline()
                # a quarter of the time left is kept for checking the repairs; the rest is shared
                # out among the regions' hitting-set loops, a region's unused share going to the next
                # (with no time limit: REPAIR_SECONDS in all; what is not proven by then is "best found")
                spare = REPAIR_SECONDS if limit.at is None else 0.75 * limit.remaining()
                t0 = time.perf_counter()
                # the small regions first: they are proven at once, and what they leave goes to the big ones
                order = sorted(range(len(self.groups)), key=lambda g: self.groups[g][1].cells.size)
                repairs: dict[int, ClueRepair] = {}
                for i, g in enumerate(order):
                    region = self.solvers()[g]
                    first = region.tiling_with([])
                    second = region.tiling_with([], other_than=first)
                    budget = (spare - (time.perf_counter() - t0)) / (len(order) - i)
                    repairs[g] = minimum_clues(region, first, second, alternatives=wanted - 1, solver=self.solver_name,
                                               budget=budget)
                found = [(sub, region, repairs[g]) for g, ((_, sub), region) in enumerate(zip(self.groups, self.solvers()))]
        finally:
            if len(found) == len(self.groups) and found:
                self._suggest(found, wanted)

    def _suggest(self, found, wanted: int) -> None:
        """The whole board's clue repairs from the regions' (the best of each; then each
        region's alternatives in turn), and their blacked-out forms; each checked."""
        out = self.out
        options = [[r.clues] + r.alternatives for _, _, r in found]
        choices = [[0] * len(found)]
        for i, alts in enumerate(options):
            for j in range(1, len(alts)):
                choice = [0] * len(found)
                choice[i] = j
                choices.append(choice)
        minimum = all(r.minimum for _, _, r in found)
        bound = sum(r.lower_bound for _, _, r in found)
        checks: dict = {}
        with self._stage("checking repairs"):
            for choice in choices[:wanted]:
                tiles = []
                for (sub, region, _), alts, j in zip(found, options, choice):
                    tiles += _tiles(sub, region.placements, alts[j])
                tiles.sort()
                clue = Suggestion("clues", len(tiles), minimum, tiles=tiles, lower_bound=bound)
                if _checked(clue, self.instance, seen=checks):
                    out.repairs.append(clue)
                cells = sorted(c for t in tiles for c in t.cells)
                block = Suggestion("block", len(cells), self._fewest_blocks(len(cells)), cells=cells)
                if _checked(block, self.instance, seen=checks):
                    out.repairs.append(block)
            if not self._fewest_blocks(2):  # one black cell fewer is an area the pieces can make up
                self._single_blocks(wanted, checks)
        out.repairs.sort(key=lambda s: (s.size, s.kind != "clues"))
        out.repairs_complete = minimum

    def _single_blocks(self, wanted: int, checks: dict) -> None:
        """Block suggestions of one cell in each region: each region's cells whose blocking
        alone leaves it one tiling (on its own board), one from each region, checked on the board."""
        per_group = [single_blocks(sub, self.solver_name) for _, sub in self.groups]
        if not all(per_group):
            return
        for k in range(min(wanted, max(len(cells) for cells in per_group))):
            cells = sorted(cells[min(k, len(cells) - 1)] for cells in per_group)
            block = Suggestion("block", len(cells), self._fewest_blocks(len(cells)), cells=cells)
            if all(b.cells != cells for b in self.out.repairs) and _checked(block, self.instance, seen=checks):
                self.out.repairs.append(block)

    def _fewest_blocks(self, size: int) -> bool:
        """Whether no fewer blocked cells could leave a tiling at all (by the areas the pieces
        can add up to): then a block repair of ``size`` cells is a minimum."""
        area = self.instance.board.area
        items = [(r.piece.size, r.min, r.max) for r in self.instance.rules]
        reach = _sums_bitset(area, items)
        return not any((reach >> (area - s)) & 1 for s in range(1, size))

    def openings(self, wanted: int) -> None:
        """Black cells of a unique board that could be opened, and it stays unique: single
        cells, and (when no single cell can be, by the areas) groups shaped as a piece."""
        out, instance = self.out, self.instance
        board = instance.board
        if not board.is_square:
            out.openings_note = "openings are looked for on square boards only"
            return
        with self._stage("openings"):
            found, note = find_openings(instance, self.placements, wanted, self.solver_name)
            out.openings_note = note
            for cells in found:
                s = Suggestion("open", len(cells), False, cells=board.cells(cells))
                if _checked(s, instance, want="unique"):
                    out.openings.append(s)


def _label(i: int) -> str:
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return letters[i] if i < 26 else letters[i // 26 - 1] + letters[i % 26]


def _tiles(sub: SubBoard, placements: Placements, ids) -> list[Tile]:
    names = [r.piece.name for r in sub.instance.rules]
    return [Tile(names[int(placements.rule[p])], tuple(sorted(sub.to_board(placements.cells_of(p)))))
            for p in ids]


def _checked(s: Suggestion, instance: Instance, want: str = "unique", seen: dict | None = None) -> bool:
    """check-unique on the edited board (the library's, any method): kept only when it says
    ``want``.  ``seen`` keeps the answers by edited board (a clue repair blacked out is the
    same board as its clues when no piece has a count: checked once)."""
    edited = s.edited(instance)
    key = (edited.board.open.tobytes(), edited.pieces_spec())
    if seen is not None and key in seen:
        result = seen[key]
    else:
        result = check_unique(edited, certificates=False)
        if seen is not None:
            seen[key] = result
    s.checked = result.verdict
    if result.verdict == "unknown":
        raise TimedOut()
    if result.verdict == "unique":
        if s.kind == "clues":  # the edited board's tiling with the clue tiles put back: one of the board's own
            s.tiling = verify_tiling(instance, Tiling(tuple(sorted(result.tilings[0].tiles + tuple(s.tiles)))))
        else:
            s.tiling = result.tilings[0]
    return result.verdict == want
