"""The SAT engine: one incremental solver over the whole board.

All three questions are one loop (:class:`TilingSearch`): solve, decode the
placement variables, verify the tiling with the independent checker, block
it with a clause over its placement variables only, solve again
(incrementally, same solver).  ``sat`` finds the first tilings (solve,
check-unique), optionally after a sweep of SAT windows (``sweep``,
:mod:`.sweep`); ``blocking`` counts and lists every tiling that way.

A ``timeout`` bounds the whole search, compiling included
(:mod:`tilesat.running.control`); when it passes the search is spent, with
the tilings found before it.
"""

from __future__ import annotations

import functools
import time
from dataclasses import replace
from typing import Callable, Iterator

import numpy as np

from ..certify.certificate import Certificate
from ..certify.checks import obstruction, placement_check
from ..certify.schedule import LpBudget
from ..certify.verify import verify_tiling
from ..errors import TilesatError
from ..model.footprint import check_formula_memory, check_memory
from ..model.instance import Instance
from ..model.placements import Placements, generate_placements
from ..model.symmetry import symmetry_group
from ..model.tiling import Tiling, tiling_from_model
from ..running.control import Deadline, TimedOut, time_limit
from ..sat.encodings import AUTO
from ..sat.formula import Formula, block_tiling, compile_formula, resolve_encoding
from ..sat.options import SatOptions
from ..sat.solvers import default_options, load_formula, make_solver
from ..sat.symbreak import symmetry_breaking
from .base import Context, Engine, Job, Progress
from .portfolio import PORTFOLIO
from ..certify.colourings import colouring_certificate
from .prune import Pruned, look_ahead, no_tiling_reason, probe
from .local_change import mend_counts, other_tiling
from .relaxation import uncoverable
from .repair_sweep import SMALL_BOARD, RepairSweep
from .sweep import (GLANCE, SCATTERED, SWEEP_MIN_AREA, SweepStats, counts_hold, scattered_blocked,
                    sweep_problem, window_encoding, window_solver)


#: The share of blocked cells up to which the solver glances before a sweep even after the
#: look-ahead: Golomb's 128x128 tromino board (one cell blocked) is tiled within the glance
#: (4.4 s in all, against 7.8 s by the sweep); random packings (5-20% blocked) never are.
GLANCE_MAX_BLOCKED = 0.02
#: Boards larger than 40x40 (repair_sweep.SMALL_BOARD) whose pieces all have LARGE_PIECE cells or
#: more, with few candidates a cell (a packing: up to AFTER_SWEEP_PAIRWISE_UP_TO), get a longer
#: glance, LARGE_PIECES_GLANCE conflicts of a pairwise whole board with the --sat options, once the
#: sweep has had a window fail and spent LARGE_PIECES_GLANCE_AFTER conflicts: on P5 random packings
#: of 80x80 and 100x100 (tuning boards) that solver found the first tiling within 5,000-21,000
#: conflicts (0.4-1.5 s), where the sweep took 0.3-10 s (41,000-292,000 conflicts), its windows'
#: draws failing more often than on L4 boards.  A sweep that meets no trouble, or mends it within a
#: few thousand conflicts, is faster still (Y5 60x60: 0.04 s, 0.13 s with a glance first; P5 60x60
#: with clusters removed: 1,800-4,900 conflicts, 0.1 s, 0.25 s with a glance at the first failed
#: window; docs/benchmarks/hard-families.md).  Where the glance does not end it, the sweep and that
#: solver share the time: the next glance comes once the sweep has spent as many conflicts as the
#: glances so far, and doubles them (so neither gets more than twice the other's), until the sweep
#: ends; on P5 100x100 tuning boards 405-414 whose first glance failed, the sweep went on for
#: 61,000-469,000 conflicts (3.5-20 s) where the whole board alone needed 28,000-87,000.
LARGE_PIECE, LARGE_PIECES_GLANCE, LARGE_PIECES_GLANCE_AFTER = 5, 25_000, 10_000
#: The whole-board formula compiled after a sweep gave up, on boards of at most this many
#: candidates a cell, is pairwise where ``--encoding auto`` would have picked commander: the
#: boards where sweeps fail are tight packings, where pairwise reached the first tiling sooner
#: (docs/benchmarks/hard-families.md).  Boards whose blocked cells lie scattered (sweep.SCATTERED)
#: get it up to AFTER_SWEEP_PAIRWISE_SCATTERED_UP_TO (L4 40x40 with 4% blocked at random: 26
#: candidates a cell, where auto picks ladder; pairwise took fewer and cheaper conflicts there).
AFTER_SWEEP_PAIRWISE_UP_TO, AFTER_SWEEP_PAIRWISE_SCATTERED_UP_TO = 20.0, 30.0
#: Probing (.prune.probe) waits, during a sweep, until the search has taken this many times
#: what the look-ahead took (probing takes one to three times that): boards the sweep tiles
#: sooner never pay for it.  And until the sweep has met trouble (a window that failed): a
#: board without a tiling always gives it some, and a sweep going smoothly has no use for
#: probing, whose deaths it is not given (the 12 pentominoes 50x50: 3.3 s of probing in 8.7).
PROBE_AFTER = 10
# After a sweep that gave up, the whole-board solver runs for this many times the sweep's
# conflicts before the LP's turn: on a tileable board the LP finds nothing and runs to its cap.
BEFORE_LP_PER_SWEEP_CONFLICT = 2.0
# Before that, the furthest attempt's partial tiling repaired by the whole-board solver in a disc
# around where it failed (TilingSearch._repair_discs): the cells within DISC_RADIUS steps, wider by
# DISC_GROW at each failure up to DISC_MAX_RADIUS, DISC_CONFLICTS each: on the tuning boards
# where every attempt fails most were tiled by the disc of 12 (docs/benchmarks/hard-families.md).
DISC_RADIUS, DISC_GROW, DISC_MAX_RADIUS, DISC_CONFLICTS = 12, 6, 30, 10_000


class _Answered(Exception):
    """Stops a sweep whose question was answered meanwhile (probing found no tiling)."""


class _LongGlanceDue(Exception):
    """Pauses a sweep in trouble for the long glance (:meth:`TilingSearch._long_glance`): raised by
    its progress hook, before a step changes anything, so that the sweep resumes where it was."""


class TilingSearch:
    """An incremental search for the tilings of one instance.

    >>> search = TilingSearch(instance)          # doctest: +SKIP
    >>> first = search.next()                    # a verified Tiling, or None
    """

    def __init__(self, instance: Instance, options: SatOptions | None = None, progress: Callable[..., None] | None = None,
                 certificates: bool | str = False, break_symmetry: bool | str = False, sweep: bool = False,
                 look_ahead: bool = False, **sat):
        """``options`` (or its fields as keywords: encoding, solver, card, timeout) say how to solve."""
        t0 = self._started = time.perf_counter()
        # on boards of SWEEP_MIN_AREA+ cells: placements in no tiling found by one step of
        # look-ahead (.prune) are left out, and a board the look-ahead settles is answered
        # without a solver; front ends only (a count's cubes require placements of their own)
        self.look_ahead = look_ahead
        # the first tiling by a sweep of SAT windows, the second by a local change of the
        # first (tilesat.engines.sweep); whatever they do not find, the solver over the whole board
        self.sweep = sweep
        # lex-leader constraints (tilesat.sat.symbreak): True breaks generators (or a small
        # group whole), "full" every element (one model per class, for counting)
        self.break_symmetry = break_symmetry
        # the certificate check (tilesat.certify.schedule.LpBudget): off by default here, the
        # engine; solve and check_unique, the front ends, turn it on
        self.certificates = certificates
        # progress(message) names the stage; progress(message, done, total) measures it
        self._progress = progress or (lambda message, done=None, total=None: None)
        self.instance = instance
        options = options or SatOptions(**sat)  # bad names fail here, before any work
        self.solver_name = options.solver
        self.timeout = options.timeout
        self.limit = Deadline(self.timeout)  # the whole search's, compiling included
        self.encoding = options.encoding
        self._auto_encoding = options.encoding == AUTO
        self.card = options.card
        with time_limit(self.limit):
            self._compile(instance, options.encoding, options.card)
        self.compile_seconds = time.perf_counter() - t0
        self.exhausted = self.reason is not None

    def _compile(self, instance, encoding, card):
        check_memory(instance)  # before the board checks too: they alone take 20 s on a 3000x3000 board
        self.certificate: Certificate | None = None
        self.certificate_check: dict = {"ran": False, "why": "a board check answered first"}
        self._lp_plan: LpBudget | None = None
        self.reason = obstruction(instance)
        self.placements: Placements | None = None
        self._formula: Formula | None = None
        self._card_waiting: str | None = None  # the card of a whole-board formula not built yet
        self.group = self.breaking = None  # with break_symmetry: the group and what was broken
        self._solver = None
        self._added: list[list[int]] = []  # clauses beyond the formula (required placements, blocked tilings)
        self.solver_options: dict = {}  # CaDiCaL options given by default (solvers.default_options)
        self._open_board = False  # the whole-board solver gets the --sat options (solvers.OPEN_BOARD_OPTIONS)
        self.found = 0
        self.last_chosen: list[int] = []
        self._sweeper: RepairSweep | None = None
        self._window_config: tuple[str, str] | None = None
        self.sweep_stats = SweepStats()
        self.found_by: list[str] = []  # how each tiling was found: "sweep", "local change" or "solver"
        self._local_tried = False
        self._discs_tried = False
        self._glanced: set[int] = set()  # for which tiling (0: the first) the solver has glanced
        self._glanced_conflicts = 0  # the conflicts the long glances at a sweep in trouble have had
        self.pruned: Pruned | None = None
        self.probing: dict | None = None  # what probing did (.prune.probe), where it ran
        self.look_ahead_error: str | None = None
        self._forced: list[int] | None = None  # the only candidate tiling, when the look-ahead settles the board
        self.solve_seconds = 0.0
        self._conflicts_seen = None  # the current whole-board solver's
        self._conflicts_closed: int | None = None  # those of the solvers closed before it (after discs, after the LP)
        if self.reason is None:
            self._progress("generating placements")
            self.placements = generate_placements(instance)
            self.reason = placement_check(self.placements)  # the board checks ran above
            if self.reason is None and self.certificates is True:  # "always" asks for the LP itself
                self._colourings()
            if self.reason is None:
                self._lp_plan = LpBudget(instance, self.placements, self.certificates, self._progress)
                self.certificate_check = self._lp_plan.report
            if self.reason is None and self.look_ahead and instance.board.area >= SWEEP_MIN_AREA and instance.board.exact:
                self._look_ahead()
            self.encoding = resolve_encoding(encoding, self.placements)  # what "auto" stands for here
            if self.sweep and not self.break_symmetry:
                # the sweep and the local change solve windows of their own: the whole-board
                # formula waits for a solver that needs it (on P5 40x40 random packings none
                # does: docs/benchmarks/hard-families.md)
                self._card_waiting = card
            else:
                # compiled even when a quick check answered, so that info and stats
                # describe the same formula whatever the verdict
                self._compile_formula(card)
            if self.break_symmetry:
                self._progress("breaking the board's symmetries (lex-leader)")
                mode = "full" if self.break_symmetry == "full" else "generators"
                if mode == "full":  # every element (count's classes); else a few maps, cheaply
                    self.group = symmetry_group(self.placements)
                self._formula, self.breaking = symmetry_breaking(self._formula, mode, self.group)

    def _compile_formula(self, card: str) -> None:
        self._progress(f"compiling {len(self.placements):,} placements to CNF ({self.encoding})")
        self.limit.check()
        self._formula = compile_formula(self.placements, self.encoding, card)

    @property
    def formula(self) -> Formula | None:
        """The whole board's CNF (None when a board check answered before placements);
        a search with a sweep builds it when first asked for (by a solver)."""
        if self._card_waiting is not None:
            t0 = time.perf_counter()
            try:
                with time_limit(self.limit):
                    self._compile_formula(self._card_waiting)
                self._card_waiting = None  # only once compiled: a stopped compile is no formula
            finally:
                self.compile_seconds += time.perf_counter() - t0
        return self._formula

    def _look_ahead(self) -> None:
        """Prune the placements in no tiling (.prune.look_ahead, its deaths replayed): the
        solver gets "not p" for each, the sweep leaves them out, a board it settles has one
        candidate tiling, and an open cell it leaves without a placement means no tiling."""
        self._progress("looking ahead: placements in no tiling")
        look = look_ahead(self.placements)
        self.pruned, self._forced, self.look_ahead_error = look.pruned, look.forced, look.error
        if look.reason is not None:
            self._no_tiling(look.reason)

    def _probe(self) -> bool:
        """Probing (.prune.probe), once, for a fast "none" once the search has taken a while
        (PROBE_AFTER), or before the LP's turn or the whole-board solver; True when it proved
        there is no tiling (the search is then exhausted).  Its deaths are not handed on:
        given to the sweep, they made some tileable boards' first attempts fail
        (docs/benchmarks/hard-families.md)."""
        if self.probing is not None or self.pruned is None or self._forced is not None or self.found:
            return False
        probed = probe(self.placements, self.pruned)
        self.probing = probed.probing
        if probed.lost is None:
            return False
        # an open cell left without a placement: no tiling, once the log of every death
        # (one step's and probing's) has replayed (certify.deaths)
        reason, error = no_tiling_reason(self.placements, probed)
        if reason is None:  # its log did not replay: the search decides without it
            self.look_ahead_error = error
            return False
        self._no_tiling(reason)
        return True

    def _no_tiling(self, reason: str, by: str = "the look-ahead") -> None:
        """A checked "none" (the look-ahead's or probing's replayed, a sweep window's confirmed):
        the search is exhausted."""
        self.reason = reason
        self.exhausted = True
        if self._lp_plan is not None:
            self._lp_plan.done(f"{by} answered first")

    def _colourings(self) -> None:
        """The classic colourings' certificates (certify.colourings): milliseconds, where the LP takes seconds."""
        cert = colouring_certificate(self.instance, self.placements)
        if cert is not None:
            self.certificate, self.reason = cert, cert.sentence()
            self.certificate_check = {"ran": True, "why": f"the {cert.stats['colouring']} colouring", "found": True}

    def _ensure_solver(self):
        if self._solver is None:
            self._solver = make_solver(self.solver_name)
            self.solver_options = default_options(self.solver_name, self.placements.candidates_per_cell(),
                                                  after_sweep=self.sweep_stats.gave_up is not None or self._open_board)
            if self.solver_options:
                self._solver.configure(self.solver_options)  # open boards: CaDiCaL's --sat options (solvers.OPEN_BOARD_OPTIONS)
            load_formula(self._solver, self.formula, self.solver_name, self._progress)
            if self.pruned is not None:  # placements in no tiling
                for p in np.flatnonzero(~self.pruned.alive).tolist():
                    self._solver.add_clause([-(p + 1)])
            for clause in self._added:  # a solver started again (after the LP's turn) keeps what was asked
                self._solver.add_clause(clause)
        return self._solver

    def _add_clause(self, clause: list[int]) -> None:
        self._added.append(clause)  # a solver started later gets it from here
        if self._solver is not None:
            self._solver.add_clause(clause)

    def next(self) -> Tiling | None:
        """The next tiling (verified), or None when there are no more.

        Raises :class:`~tilesat.running.control.TimedOut` when the search's time
        limit passes (the search is spent then)."""
        if self.exhausted:
            return None
        with time_limit(self.limit):
            return self._next()

    def _next(self) -> Tiling | None:
        if self._forced is not None:
            # the look-ahead left one placement per cell: the only candidate tiling,
            # checked as every tiling is (a count it breaks: the solver decides)
            chosen = self._forced
            if self.found == 0 and counts_hold(self.placements, chosen):
                self.found_by.append("look-ahead")
                if self._lp_plan is not None:
                    self._lp_plan.done("the look-ahead settled the board")
                return self._accept(chosen)
            if self.found == 1 and self.found_by == ["look-ahead"]:
                self.exhausted = True  # no other candidate
                return None
        plan = self._lp_plan
        if self.sweep and self.found == 0 and plan is not None and plan.pending and plan.budget > 0:
            # A sweep goes on while it goes forward: the LP's turn comes when its
            # window widens past its trouble width, a sign that there may be no tiling.
            found = self._without_solver(pause=True)
            if found is not None or self.exhausted:
                if plan.pending:  # not when probing answered (it said so)
                    plan.done("the search finished first")
                return None if found is None else self._accept(*found)
        kept = False  # a whole-board solver paused before the LP, to go on after it
        if plan is not None and plan.pending and self._sweeper is not None and self._sweeper.done:
            # a sweep that gave up: the whole-board solver first, for twice the sweep's conflicts
            # (on a tileable board the LP finds nothing and runs to its cap), then the LP
            if self._probe():
                return None
            if self._repair_discs():
                plan.done("the whole-board solver finished first")
                return self._solved(True)
            # (the attempts a sweep left after a first one that failed early count as if run:
            # the LP's turn comes no sooner for them)
            swept = self.sweep_stats.conflicts + self.sweep_stats.foregone
            status = self._solve_whole_board(int(BEFORE_LP_PER_SWEEP_CONFLICT * swept) - self.sweep_stats.disc_conflicts)
            if status is not None:
                plan.done("the whole-board solver finished first")
                return self._solved(status)
            kept = True
        elif plan is not None and plan.pending and plan.budget > 0 and self.sweep_stats.seconds < plan.budget:
            # the search first, for as long as the LP would take (a sweep that ran that long
            # has had the search's turn: a solver started now would be stopped and lost); then the LP
            finished, tiling = plan.attempt(self._solve_next)
            if finished:
                return tiling
        if plan is not None and plan.pending and self._probe():
            # (not self.exhausted here: a solver the LP's budget stopped is exhausted too)
            return None
        if plan is not None and plan.pending:
            self.certificate = plan.run()
            if self.certificate is not None:
                self.reason = self.certificate.sentence()
                self.exhausted = True
                self.close()
                return None
            if not kept:  # the budgeted solver was stopped: a new one, same formula
                self.close()
                self.exhausted = False
        return self._solve_next()

    def _solve_next(self) -> Tiling | None:
        if self.sweep and self.found < 2:
            if (found := self._without_solver()) is not None:
                return self._accept(*found)
            if self.exhausted:
                return None
        if self._probe():
            return None
        if self._repair_discs():
            return self._solved(True)
        return self._solved(self._solve_whole_board())

    def _repair_discs(self) -> bool:
        """After a sweep that gave up, before the whole board: the furthest attempt's placements
        kept (assumed) except in a disc around the cells its last failed window could not
        cover, the rest of the board solved by the whole-board solver, the disc wider at each
        failure (radius DISC_RADIUS, DISC_GROW more up to DISC_MAX_RADIUS: the sweep's own take-back
        stops at MAX_RADIUS and solves a window, not the rest of the board), each solve within
        DISC_CONFLICTS and all of them within the sweep's conflicts.  True: the solver holds a
        tiling.  A disc without a solution says nothing of the board (the kept placements were
        assumed): the whole board follows."""
        sweeper = self._sweeper
        if self._discs_tried or sweeper is None or not sweeper.done or self.found:
            return False
        self._discs_tried = True
        solver = self._ensure_solver()
        if not getattr(solver, "can_budget", False):
            return False
        start = self.conflicts() or 0
        radius = DISC_RADIUS
        while radius <= DISC_MAX_RADIUS and (kept := sweeper.furthest_apart(radius)) is not None and kept.size:
            left = self.sweep_stats.conflicts - ((self.conflicts() or 0) - start)
            if left <= 0:
                break
            self.sweep_stats.discs.append(radius)
            try:
                if self._solve_whole_board(min(DISC_CONFLICTS, left), (kept + 1).tolist(), f"disc of radius {radius}"):
                    return True
            finally:
                self.sweep_stats.disc_conflicts = (self.conflicts() or 0) - start
            radius += DISC_GROW
        if self.sweep_stats.discs:
            # the whole board from a new solver: the one that failed the discs has its phases set
            # near the partial tiling, and from there it took longer than a new one (tuning board 107)
            self.close()
        return False

    def _solve_whole_board(self, conflicts: int | None = None, assumptions: list[int] = (),
                           what: str = "") -> bool | None:
        """The solver over the whole board: satisfiable or not; with ``conflicts``, None when it
        gave up after that many (or cannot count them), the solver kept to go on later.  Under
        ``assumptions`` (a disc's), False only says that they cannot all hold."""
        if conflicts is not None and conflicts <= 0:
            return None
        solver = self._ensure_solver()
        if conflicts is not None and not getattr(solver, "can_budget", False):
            return None
        stage = f"solving for tiling {self.found + 1}" + (f" ({what})" if what else "")
        self._progress(stage)
        solver.on_conflicts = lambda n: self._progress(f"{stage} · {n:,} conflicts")
        t0 = time.perf_counter()
        try:
            return solver.solve(assumptions) if conflicts is None else solver.solve(assumptions, conflicts=conflicts)
        except (TimedOut, KeyboardInterrupt):
            self.exhausted = True  # the solver is spent
            raise
        finally:
            self.solve_seconds += time.perf_counter() - t0

    def _solved(self, sat: bool) -> Tiling | None:
        """The whole-board solver's tiling, or None (no more: the search is exhausted)."""
        if not sat:
            self.exhausted = True
            return None
        return self._accept(*self._from_solver())

    def _from_solver(self) -> tuple[list[int], Tiling]:
        """(placements, tiling) of the whole-board solver's model, counted as the solver's."""
        self.found_by.append("solver")
        tiling, chosen = tiling_from_model(self.placements, self._solver.model())
        return chosen, tiling

    def _without_solver(self, pause: bool = False) -> tuple[list[int], Tiling | None] | None:
        """(placements, tiling or None) of the first tiling by the sweep or of the second by a
        local change, or None: the solver's turn.  Neither repeats a tiling: the sweep
        runs before any is found, the local change differs from the first.

        The solver over the whole board glances first (:meth:`_glance`) where that
        is likely to pay: before the sweep, and before the local change when the
        first tiling was the solver's (a warm solver finds a second one in a few
        conflicts).  ``exhausted`` is set when a glance proves there is no (other) tiling."""
        if self.found == 0 or (self.found == 1 and self.found_by[0] == "solver"):
            if self.found not in self._glanced and self._worth_a_glance():
                self._glanced.add(self.found)
                sat = self._glance()
                if sat is False:
                    self.exhausted = True
                    return None
                if sat:
                    return self._from_solver()
        if self.found == 0:
            while True:
                try:
                    chosen = self._sweep(pause)
                except _LongGlanceDue:
                    sat = self._long_glance()
                    if sat is None:
                        continue  # neither way within it: the sweep resumes where it paused
                    if not sat:
                        self.exhausted = True  # the whole board has no tiling
                        return None
                    return self._from_solver()
                return None if chosen is None else (chosen, None)
        if self.found == 1 and not self._local_tried:
            self._local_tried = True
            self._progress("looking for a second tiling near the first")
            t0 = time.perf_counter()
            try:
                encoding, solver = self._windows()
                chosen = other_tiling(self.placements, self.last_chosen, encoding, self.sweep_stats, solver, self._alive)
            finally:
                self.solve_seconds += time.perf_counter() - t0
            if chosen is not None:
                self.found_by.append("local change")
                return chosen, None
        return None

    def _worth_a_glance(self) -> bool:
        """Whether the whole-board solver should glance before the sweep: always, unless
        the look-ahead ran (designed puzzles, which the glance was for, it settles) and
        more than GLANCE_MAX_BLOCKED of the board is blocked (random packings: loading the
        whole-board formula costs 0.5-1.5 s there and one run never ends within the glance)."""
        if self.pruned is None or self.found:
            return True
        board = self.instance.board
        return 1 - board.area / board.ncells <= GLANCE_MAX_BLOCKED

    @functools.cached_property
    def _large_pieces(self) -> bool:
        """Whether a sweep in trouble gets the long glance (:meth:`_long_glance`): a board past
        40x40 whose pieces all have LARGE_PIECE cells or more, the look-ahead run, and a pairwise
        whole-board formula that AFTER_SWEEP_PAIRWISE_UP_TO allows."""
        board = self.instance.board
        return (self.pruned is not None and board.ncells > SMALL_BOARD
                and min(rule.piece.size for rule in self.instance.rules) >= LARGE_PIECE
                and self._pairwise_fits(AFTER_SWEEP_PAIRWISE_UP_TO))

    def _long_glance(self) -> bool | None:
        """The whole board, pairwise with the --sat options, on packings of large pieces, where
        the sweep pauses in trouble (:meth:`_probing_after_a_while`): LARGE_PIECES_GLANCE conflicts
        the first time, as many as all glances before it the next ones.  True: a tiling; False:
        there is none; None: neither within them."""
        if not self._glanced_conflicts:
            self._pairwise_instead(AFTER_SWEEP_PAIRWISE_UP_TO)
            self._open_board = True
        conflicts = max(LARGE_PIECES_GLANCE, self._glanced_conflicts)
        self._glanced_conflicts += conflicts
        return self._glance(conflicts)

    def _long_glance_due(self, troubled: bool) -> bool:
        """Whether the sweep pauses for a long glance now: a board of large pieces, its first
        tiling not found, a window failed, and the sweep's conflicts past LARGE_PIECES_GLANCE_AFTER
        and past those of the glances so far."""
        conflicts = self.sweep_stats.conflicts
        return (not self.found and troubled and conflicts >= LARGE_PIECES_GLANCE_AFTER
                and conflicts >= self._glanced_conflicts and self._large_pieces)

    def _glance(self, conflicts: int = GLANCE) -> bool | None:
        """The solver over the whole board for these conflicts only: designed
        puzzles end within GLANCE in milliseconds (propagation does the work),
        and so do boards that one run tiles easily, before a sweep would have
        begun.  None: not within them, or a solver without conflict budgets."""
        solver = self._ensure_solver()
        if not getattr(solver, "can_budget", False):
            return None
        self._progress(f"solving for tiling {self.found + 1}")
        t0 = time.perf_counter()
        try:
            return solver.solve(conflicts=conflicts)
        except (TimedOut, KeyboardInterrupt):
            self.exhausted = True  # the solver is spent
            raise
        finally:
            self.solve_seconds += time.perf_counter() - t0

    def _windows(self) -> tuple[str, str]:
        """The encoding and solver of the sweep's windows and of the boxes that mend its counts
        or look for a second tiling: set once, before a failed sweep changes the whole board's
        encoding (_after_failed_sweep)."""
        if self._window_config is None:
            self._window_config = (window_encoding(self.encoding), window_solver(self.solver_name))
        return self._window_config

    @property
    def _alive(self) -> np.ndarray | None:
        """The placements the look-ahead left (None: it did not run)."""
        return None if self.pruned is None else self.pruned.alive

    def _sweep(self, pause: bool = False) -> list[int] | None:
        """The sweep's tiling, or None: it gave up, or (``pause``) paused before a window
        wider than its trouble width (sweep.Stepping.trouble_width).
        It resumes where a pause or a time limit left it."""
        if self._sweeper is None:
            encoding, solver = self._windows()
            self._sweeper = RepairSweep(self.placements, encoding, solver, self.sweep_stats, self._alive)
            if self._blocked_scattered:
                if self._refuted(self._sweeper.refute_at_corners()):
                    return None
                self._sweeper.refuted = None  # not confirmed: not checked again when the sweep gives up
        if self._sweeper.done:
            return None
        t0 = time.perf_counter()
        try:
            chosen = self._sweeper.run(self._probing_after_a_while, self._sweeper.trouble_width if pause else None)
            if chosen is not None:
                encoding, solver = self._windows()
                chosen = mend_counts(self.placements, chosen, encoding, self.sweep_stats, solver, self._alive,
                                     self._progress)
        except _Answered:
            return None
        finally:
            self.solve_seconds += time.perf_counter() - t0
        if chosen is not None:
            self.found_by.append("sweep")
        elif self._sweeper.done and not self._refuted(self._sweeper.refuted):
            self._after_failed_sweep()
        return chosen

    def _refuted(self, cells: np.ndarray | None) -> bool:
        """Whether these cells, which a sweep window with nothing kept could not cover, prove
        that there is no tiling: said once a formula of their own (.relaxation) agrees; the
        search is then exhausted."""
        if cells is None:
            return False
        self._progress("checking cells a sweep window could not cover")
        if not uncoverable(self.placements, cells, self._alive):
            self.sweep_stats.refuted = "a window's cells, not confirmed: the search goes on"
            return False
        rows, cols = np.divmod(cells, self.instance.board.open.shape[1])
        self._no_tiling(f"no tiling: the {cells.size} open cells of rows {rows.min()}-{rows.max()}, columns "
                        f"{cols.min()}-{cols.max()} that a sweep window could not cover cannot all be covered "
                        f"(checked by a formula of those cells alone)", "a sweep window")
        self.sweep_stats.refuted = "a window's cells, confirmed"
        return True

    def _probing_after_a_while(self, message: str, done=None, total=None) -> None:
        """The sweep's progress; once a window has failed, on packings of large pieces the sweep
        pauses for the long glances (:meth:`_long_glance_due`, :meth:`_long_glance`),
        and once the search has taken PROBE_AFTER times what the look-ahead took, probing
        (:meth:`_probe`), which stops the sweep when it finds there is no tiling."""
        self._progress(message, done, total)
        stats = self.sweep_stats
        troubled = bool(stats.repairs or stats.widened or stats.restarts)  # a window has failed
        if self._long_glance_due(troubled):
            raise _LongGlanceDue
        if (self.probing is None and self.pruned is not None and troubled
                and time.perf_counter() - self._started > PROBE_AFTER * self.pruned.seconds):
            if self._probe():
                raise _Answered

    @functools.cached_property
    def _blocked_scattered(self) -> bool:
        """Whether the board's blocked cells lie scattered (sweep.SCATTERED): the sweep's corner
        windows come first, and a failed sweep's whole board may go pairwise further."""
        return scattered_blocked(self.instance.board) >= SCATTERED

    def _after_failed_sweep(self) -> None:
        """The whole-board solver takes over from a sweep that gave up: picks a pairwise formula,
        when not built yet, where ``--encoding auto`` would have picked commander
        (AFTER_SWEEP_PAIRWISE_UP_TO), or ladder on a board whose blocked cells lie scattered
        (AFTER_SWEEP_PAIRWISE_SCATTERED_UP_TO); :meth:`_ensure_solver` gives that solver the --sat options.
        The windows keep their encoding (:meth:`_windows`).  Not where pairwise's formula is past
        the memory limit (two to four times auto's clauses): the run goes on with auto's."""
        self._pairwise_instead(AFTER_SWEEP_PAIRWISE_SCATTERED_UP_TO if self._blocked_scattered
                               else AFTER_SWEEP_PAIRWISE_UP_TO)

    def _pairwise_fits(self, up_to: float) -> bool:
        """Whether the whole-board formula, not built yet and ``--encoding auto``, may be pairwise:
        on boards of at most ``up_to`` candidates a cell, where it fits the memory limit."""
        if self._card_waiting is None or not self._auto_encoding or self.placements.candidates_per_cell() > up_to:
            return False
        try:
            check_formula_memory(self.placements, "pairwise", self._card_waiting)
        except TilesatError:
            return False
        return True

    def _pairwise_instead(self, up_to: float) -> bool:
        """Whether the whole-board formula is now pairwise (where :meth:`_pairwise_fits`)."""
        if not self._pairwise_fits(up_to):
            return False
        self.encoding = "pairwise"
        return True

    def _accept(self, chosen: list[int], tiling: Tiling | None = None) -> Tiling:
        """The tiling of these placements, verified, counted and blocked."""
        if tiling is None:
            tiling = Tiling.from_placements(self.placements, chosen)
        verify_tiling(self.instance, tiling)
        self.found += 1
        self.last_chosen = chosen  # the placement indices of the tiling just returned
        # Block this tiling: not all of these placements again.  Only the
        # placement variables: auxiliaries could differ for the same tiling.
        self._add_clause(block_tiling(self.placements, chosen))
        return tiling

    def require(self, placement: int) -> None:
        """Only tilings that use this placement from now on (one cube of a split search)."""
        self._forced = None  # the shortcut answers for the whole board, not a cube of it
        if not self.exhausted:
            with time_limit(self.limit):
                self._add_clause([placement + 1])

    def __iter__(self) -> Iterator[Tiling]:
        while (t := self.next()) is not None:
            yield t

    def conflicts(self) -> int | None:
        """The whole-board solvers' conflicts so far, every one this search started (None
        before the first started)."""
        if self._solver is not None:
            self._conflicts_seen = self._solver.stats().get("conflicts", self._conflicts_seen)
        if self._conflicts_seen is None and self._conflicts_closed is None:
            return None
        return (self._conflicts_closed or 0) + (self._conflicts_seen or 0)

    def close(self):
        if self._solver is not None:
            self.conflicts()
            self._solver.close()
            self._solver = None
            self._conflicts_closed = (self._conflicts_closed or 0) + (self._conflicts_seen or 0)
            self._conflicts_seen = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def stats(self) -> dict:
        f = self._formula  # not built by asking for stats: None where the sweep answered alone
        return {
            "placements": len(self.placements) if self.placements is not None else None,
            "variables": f.nvars if f else None,
            "clauses": f.nclauses if f else None,
            "encoding": self.encoding,
            "card": self.card,
            "solver": self.solver_name,
            "solver_options": self.solver_options,
            "conflicts": self.conflicts(),
            "compile_seconds": round(self.compile_seconds, 6),
            "solve_seconds": round(self.solve_seconds, 6),
            "seconds": round(self.compile_seconds + self.solve_seconds, 6),
            "certificate_check": self._lp_plan.report if self._lp_plan is not None else self.certificate_check,
            **({"symmetry_breaking": self.breaking.to_json()} if self.breaking is not None else {}),
            **({"sweep": {**self.sweep_stats.to_json(), "found_by": self.found_by}} if self.sweep else {}),
            **({"look_ahead": {**self.pruned.stats(), "settled": self._forced is not None,
                               **({"probing": self.probing} if self.probing else {}),
                               **({"error": self.look_ahead_error} if self.look_ahead_error else {})}}
               if self.pruned is not None else {}),
        }


class SatEngine(Engine):
    """solve and check-unique by one SAT search (``sat``), or a sweep of SAT
    windows first (``sweep``; :mod:`.sweep`)."""

    questions = frozenset({"find"})
    uses = ("encoding", "solver", "card")
    instead = {"find": "--method sat"}

    def __init__(self, name: str, sweeps: bool, summary: str, refuses_break_symmetry: str | None = None):
        self.name, self.sweeps, self.summary = name, sweeps, summary
        self.refuses_break_symmetry = refuses_break_symmetry

    def problem(self, instance: Instance) -> str | None:
        return sweep_problem(instance) if self.sweeps else None

    def for_jobs(self, jobs: int) -> Engine:
        return PORTFOLIO if jobs > 1 else self  # N configurations of this search racing

    def find(self, job: Job, count: int, progress: Progress, found: list[Tiling], stats: dict) -> str | None:
        search = None
        options = job.options
        try:
            search = TilingSearch(job.instance, replace(options, timeout=None), progress, certificates=job.certificates,
                                  break_symmetry=job.break_symmetry, sweep=self.sweeps,
                                  look_ahead=not job.break_symmetry)
            with search:
                while len(found) < count and (t := search.next()) is not None:
                    found.append(t)
            return search.reason
        finally:
            if search is not None:
                stats.update(search.stats())
                stats["_certificate"] = search.certificate  # moved to Result.certificate


class BlockingEngine(Engine):
    """count and list by blocking clauses: one incremental solver, each tiling blocked once found."""

    name = "blocking"
    questions = frozenset({"count", "list"})
    uses = ("encoding", "solver", "card")
    enumerates = True
    summary = "SAT + blocking clauses"
    # a SAT solver per unit (3x20 pentominoes up to symmetry, --jobs 2: 12 s with 9 units,
    # 18 s with 49): fewer units per worker unless a cluster or a checkpoint asks
    units_per_worker = 4

    def tilings(self, ctx: Context, forced: tuple[int, ...] | None, limit: int | None) -> Iterator[np.ndarray]:
        with TilingSearch(ctx.instance, replace(ctx.options, timeout=None)) as search:
            for p in forced or ():
                search.require(p)
            n = 0
            while (limit is None or n < limit) and search.next() is not None:
                n += 1
                yield np.asarray(search.last_chosen, dtype=np.int64)  # empty when every cell is optional and left empty
        ctx.exhausted = search.exhausted


SAT = SatEngine("sat", False, "one SAT solver over the whole board")
SWEEP = SatEngine("sweep", True, "SAT windows moving across the board find tilings; one SAT run proves none or unique",
                  "--break-symmetry adds lex-leader clauses that a sweep's windows do not see: use --method sat (or auto)")
BLOCKING = BlockingEngine()
