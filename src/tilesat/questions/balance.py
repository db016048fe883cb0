"""Units that balance themselves: a split count's units estimated, run
biggest first, each within a time budget, and split where it stands when it
runs past it (cube-and-conquer's dynamic splitting).

A count's first plan (:func:`tilesat.questions.count.plan_units`) cuts the
work by the placements of one piece or one cell: on record-size boards the
first cut's units differ by orders of magnitude, and the biggest leaves the
other workers idle at the end.  So:

- each unit's size is **estimated** before it runs (Knuth's estimator: the
  mean over random root-to-leaf paths of the product of the branching
  factors along the path, which is unbiased for the tree's size), when its
  engine can (``Engine.estimate_unit``: the native enumerator's); units are
  handed out biggest first;
- each run gets a **budget**: a share of the time the work left is expected
  to take (:func:`budget`); an engine that can stop where it stands (the
  native enumerator) hands back, when the budget is spent, what it counted
  so far and the **rest** of its unit as sub-units (forced and excluded
  placements: the untried part of each level of its path), which go back in
  the queue;
- the :class:`Ledger` is every unit of the count as it goes, the first plan
  then each unit's parts in the order the splits happened; a checkpoint
  records each split in one line (the partial counts and the parts), so a
  resume rebuilds the same ledger and its total stays exact;
- the estimates give the **progress** an expected total and time left
  (:meth:`Ledger.forecast`): the time left from the pending units' estimated
  nodes at the rate measured so far; the tilings left from the same nodes
  times the tilings a node the count has measured (a ratio estimator).  A
  random path's tilings are far noisier than its nodes: on the 9x10
  one-sided pentominoes 300 paths a unit find a tiling in few units, and
  their sum fell to a hundredth of the truth once the units whose paths had
  been lucky were run first; the nodes hold within a factor of two or so.
"""

from __future__ import annotations

import heapq
import time
from typing import Callable

from ..engines.base import Outcome
from ..running.control import TimedOut, deadline

#: A budget is this share of the time the work left is expected to take on
#: one worker: a unit never holds a worker much beyond 1/SHARE of its share.
SHARE = 16
#: No budget under this many seconds: a split costs a few milliseconds
#: (the parts' records, their estimates, sending them).
MIN_BUDGET = 0.5
#: Nodes a second assumed until the count has measured its own rate, which it
#: has once its units have run this many seconds.
DEFAULT_RATE, RATE_AFTER_SECONDS = 5e6, 0.5
#: The estimates' own tilings count in the forecast as this many nodes of
#: measured search (about a second): before anything ran they are all there
#: is; the count's measured tilings a node take over as it searches.
PRIOR_NODES = 1e6
#: Budgets are at most this many seconds until the run has measured its rate:
#: the forecast learns the rate and the tilings a node within seconds, where
#: DEFAULT_RATE alone gave the first 9x10 units four minutes each.
FIRST_BUDGET = 10.0
#: No budget above this many seconds: the forecast and the checkpoint hear from
#: each worker at least this often (a 9x10 count's share was 40 minutes a unit),
#: for a split's cost (its parts' estimates: well under a second).
MAX_BUDGET = 60.0


PENDING, DONE, SPLIT = "pending", "done", "split"


class Ledger:
    """Every unit of one count: the planned ones (indices 0..n-1), then the
    parts of each unit split where it stood, appended in the order of the
    splits.  ``counts[i]``: the tilings each symmetry of unit i fixes among
    those it counted itself (all of its tilings when done, those found before
    the split when split); the count's total is the sum over every unit with
    counts, since a split unit's parts hold exactly its other tilings.

    The pending units are kept in a heap by their estimated size, and the
    estimates of the work left summed as units come and go, so that handing
    out the next unit and its budget costs O(log n) on a ledger of many
    thousand units."""

    def __init__(self, units: list):
        self.units: list = []
        self.state: list[str] = []
        self.counts: list[list[int] | None] = []
        self.seconds: list[float | None] = []
        self.parent: list[int] = []
        self.estimate: list[tuple[float, float] | None] = []  # (nodes, tilings); set with set_estimate
        self.nodes_done = 0  # nodes and seconds measured in this run: the rate
        self.seconds_done = 0.0
        self.measured = [0, 0]  # tilings and nodes of the settled runs that said their nodes (all runs)
        self._tilings = 0  # raw tilings of the settled units
        self._settled = 0
        # the pending units' estimated nodes, raw tilings, how many lack an estimate, nodes times weight
        self._left = [0.0, 0.0, 0, 0.0]
        self._heap: list = []  # (unknown?, -nodes, index) of pending units, stale entries skipped
        for unit in units:
            self._add(unit, -1, None)

    def __len__(self) -> int:
        return len(self.units)

    def _add(self, unit, parent: int, estimate) -> int:
        i = len(self.units)
        self.units.append(unit)
        self.state.append(PENDING)
        self.counts.append(None)
        self.seconds.append(None)
        self.parent.append(parent)
        self.estimate.append(None)
        self._left[2] += 1
        self._push(i)
        if estimate is not None:
            self.set_estimate(i, estimate)
        return i

    def _push(self, i: int) -> None:
        e = self.estimate[i]
        heapq.heappush(self._heap, (e is None, -(e[0] if e else 0.0), i, e))

    def set_estimate(self, i: int, estimate: tuple[float, float] | None) -> None:
        """Unit i's estimated (nodes, tilings) (None: unknown)."""
        if self.state[i] == PENDING:
            self._count_left(i, -1)
            self.estimate[i] = estimate
            self._count_left(i, +1)
            self._push(i)
        else:
            self.estimate[i] = estimate

    def _count_left(self, i: int, sign: int) -> None:
        e = self.estimate[i]
        if e is None:
            self._left[2] += sign
        else:
            weight = self.units[i].weight
            self._left[0] += sign * e[0]
            self._left[1] += sign * weight * e[1]
            self._left[3] += sign * weight * e[0]

    # -- the ledger's moves
    def finish(self, i: int, counts: list[int], seconds: float | None = None, nodes: int | None = None) -> None:
        self._settle(i, DONE, counts, seconds, nodes)

    def split(self, i: int, counts: list[int], parts: list, seconds: float | None = None, nodes: int | None = None,
              estimates: list | None = None) -> range:
        """Unit i stopped where it stood: ``counts`` for what it found, and its
        ``parts`` ((forced, excluded) pairs) added as new units; their indices."""
        self._settle(i, SPLIT, counts, seconds, nodes)
        unit = self.units[i]
        first = len(self.units)
        for j, (forced, excluded) in enumerate(parts):
            part = type(unit)(tuple(forced), unit.syms, unit.weight, tuple(excluded))
            self._add(part, i, estimates[j] if estimates and j < len(estimates) else None)
        return range(first, len(self.units))

    def _settle(self, i: int, state: str, counts: list[int], seconds: float | None, nodes: int | None) -> None:
        if self.state[i] != PENDING:
            raise AssertionError(f"BUG: unit {i} settled twice")
        if len(counts) != len(self.units[i].syms):
            raise AssertionError(f"BUG: unit {i} has {len(self.units[i].syms)} symmetries, {len(counts)} counts")
        self._count_left(i, -1)
        self.state[i], self.counts[i], self.seconds[i] = state, list(counts), seconds
        self._tilings += self.units[i].weight * counts[0]  # syms[0] is the identity: all tilings
        self._settled += 1
        if nodes is not None and seconds is not None:
            self.nodes_done += nodes
            self.seconds_done += seconds
        self._measure(counts, nodes)

    def _measure(self, counts: list[int], nodes: int | None) -> None:
        if nodes is not None:
            self.measured[0] += counts[0]
            self.measured[1] += nodes

    # -- what it says
    def next_pending(self, skip=frozenset()) -> int | None:
        """The biggest pending unit by its estimate (unknown ones last, in order), not in ``skip``."""
        held = []
        found = None
        while self._heap:
            entry = heapq.heappop(self._heap)
            i = entry[2]
            if self.state[i] != PENDING or entry[3] is not self.estimate[i] and entry[3] != self.estimate[i]:
                continue  # settled, or an older estimate
            if i in skip:
                held.append(entry)
                continue
            found = i
            held.append(entry)
            break
        for entry in held:
            heapq.heappush(self._heap, entry)
        return found

    def pending(self) -> list[int]:
        """The units still to run, biggest estimate first (unknown ones last, in order)."""
        todo = [i for i, s in enumerate(self.state) if s == PENDING]
        return sorted(todo, key=lambda i: (self.estimate[i] is None, -(self.estimate[i] or (0, 0))[0], i))

    @property
    def complete(self) -> bool:
        return self._settled == len(self.units)

    def settled(self) -> int:
        return self._settled

    def tilings(self) -> int:
        """Raw tilings counted so far."""
        return self._tilings

    def counted(self) -> list[tuple[object, list[int]]]:
        """(unit, counts) of every unit that has counts: what the classes are computed from."""
        return [(u, c) for u, c in zip(self.units, self.counts) if c is not None]

    def rate(self) -> float:
        """Nodes a second, as measured so far (DEFAULT_RATE before anything was measured)."""
        if self.seconds_done > RATE_AFTER_SECONDS and self.nodes_done > 0:
            return self.nodes_done / self.seconds_done
        return DEFAULT_RATE

    def nodes_left(self) -> float | None:
        """The estimated nodes of the pending units (None when some have no estimate)."""
        return None if self._left[2] else max(0.0, self._left[0])

    def tilings_left(self) -> float:
        """The pending units' raw tilings, expected: their estimated nodes (times their
        weights) at the tilings a node measured so far, blended with their estimated
        tilings counted as PRIOR_NODES of measured search; 0 when none is pending."""
        if self.complete:
            return 0.0
        found, searched = self.measured
        nodes, tilings = max(0.0, self._left[3]), max(0.0, self._left[1])
        return (found * nodes + PRIOR_NODES * tilings) / (searched + PRIOR_NODES)

    def forecast(self, workers: int) -> tuple[float | None, float | None]:
        """(estimated seconds left on ``workers`` workers, estimated total raw tilings): the
        pending units' estimated nodes at the rate measured so far, and the tilings counted
        so far plus :meth:`tilings_left`; (None, None) while some unit has no estimate."""
        if self._left[2]:
            return None, None
        seconds = 0.0 if self.complete else max(0.0, self._left[0]) / self.rate() / max(1, workers)
        return seconds, self._tilings + self.tilings_left()

    def budget(self, workers: int) -> float | None:
        """The time budget of the next run (None: no estimate, no budget): short
        (FIRST_BUDGET) while the rate is not measured yet."""
        seconds = budget(self.nodes_left(), self.rate(), workers)
        measured = self.seconds_done > RATE_AFTER_SECONDS
        return seconds if seconds is None or measured else min(seconds, max(MIN_BUDGET, FIRST_BUDGET))

    # -- a checkpoint's records, replayed
    def replay(self, records: list[dict], refuse: Callable[[str], Exception]) -> int:
        """Settle the units the checkpoint's ``records`` (in file order) settled,
        each split adding its parts as it did; returns how many were settled."""
        n = 0
        for rec in records:
            i = rec.get("unit")
            if not isinstance(i, int) or not 0 <= i < len(self.units):
                raise refuse(f"damaged: a record names unit {i!r}, which the plan and its splits do not have")
            unit = self.units[i]
            if rec.get("forced") != list(unit.forced) or rec.get("excluded", []) != list(unit.excluded):
                raise refuse(f"damaged: the record of unit {i} does not match the plan")
            counts = rec.get("counts")
            if not (isinstance(counts, list) and len(counts) == len(unit.syms)
                    and all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in counts)):
                raise refuse(f"damaged: unit {i}'s counts are not what it needs")
            if self.state[i] != PENDING:
                raise refuse(f"damaged: unit {i} recorded twice")
            seconds = rec.get("seconds")
            seconds = seconds if isinstance(seconds, (int, float)) and not isinstance(seconds, bool) else None
            nodes = rec.get("nodes")  # a measure for the forecast, not for this run's rate
            nodes = nodes if isinstance(nodes, int) and not isinstance(nodes, bool) and nodes >= 0 else None
            parts = rec.get("split")
            if parts is None:
                self.finish(i, counts, seconds)
            else:
                if (not isinstance(parts, list) or rec.get("first") != len(self.units)
                        or not all(_is_part(p) for p in parts)):
                    raise refuse(f"damaged: the split of unit {i} is not what tilesat writes")
                self.split(i, counts, [(p["forced"], p["excluded"]) for p in parts], seconds)
            self._measure(counts, nodes)
            n += 1
        return n


def _is_part(p) -> bool:
    return (isinstance(p, dict) and all(isinstance(p.get(k), list) for k in ("forced", "excluded"))
            and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for k in ("forced", "excluded")
                    for x in p[k]))


def split_record(ledger: Ledger, i: int, first: int) -> dict:
    """What a checkpoint writes for unit i split into the units ``first``.. (one line)."""
    parts = [ledger.units[j] for j in range(first, len(ledger.units)) if ledger.parent[j] == i]
    return {"split": [{"forced": list(u.forced), "excluded": list(u.excluded)} for u in parts], "first": first}


def budget(nodes_left: float | None, rate: float, workers: int) -> float | None:
    """A run's time budget: 1/SHARE of what the work left is expected to take
    on each of ``workers`` workers, between MIN_BUDGET and MAX_BUDGET; None without an estimate."""
    if nodes_left is None:
        return None
    return min(MAX_BUDGET, max(MIN_BUDGET, nodes_left / max(rate, 1.0) / max(1, workers) / SHARE))


# --- running a ledger ---------------------------------------------------------

class Backend:
    """Where a ledger's units run: ``start(i, unit, budget)`` hands one out,
    ``ready()`` yields (i, outcome tuple) of those that came back (waiting at most
    one poll, under the deadline and the count's watchers), ``capacity`` how many
    may run at once."""

    capacity = 1

    def start(self, i: int, unit, budget: float | None) -> None:
        raise NotImplementedError

    def ready(self):
        raise NotImplementedError

    def stop(self, running: set[int]) -> tuple[list, int]:
        """At the deadline: (i, outcome tuple) of the ``running`` units that came back with
        what they had counted by then, and how many running units' work is in neither those
        nor the count so far (this default: every one's)."""
        return [], len(running)


class InProcess(Backend):
    """Each unit here, one after another (the native enumerator runs in slices:
    Ctrl-C and the deadline act between them)."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.done: list = []

    def start(self, i, unit, budget):
        self.done.append((i, self.ctx.run_within(unit, budget)))

    def ready(self):
        done, self.done = self.done, []
        return done


def drive(ledger: Ledger, backend: Backend, workers: int, settle: Callable[[int, Outcome], None],
          budgets: bool = True, uncounted: Callable[[int], None] = lambda n: None) -> None:
    """Run the ledger's pending units on ``backend`` until none is left: the
    biggest first, at most ``capacity`` at once, each within its budget (when
    ``budgets``), each outcome settled (a split's parts join the queue).  At the
    deadline (TimedOut) the running units' outcomes that the backend gets back are
    settled first, and ``uncounted(n)`` hears how many running units' work is lost."""
    running: set[int] = set()
    try:
        while True:
            while len(running) < backend.capacity:
                i = ledger.next_pending(running)
                if i is None:
                    break
                deadline().check()  # a unit stopped at the deadline came back: start no other
                running.add(i)
                backend.start(i, ledger.units[i], ledger.budget(workers) if budgets else None)
            if not running:
                return
            for i, result in backend.ready():
                running.discard(i)
                settle(i, Outcome.from_tuple(result))
    except TimedOut:
        came_back, lost = backend.stop(running)
        for i, result in came_back:
            settle(i, Outcome.from_tuple(result))
        if lost:
            uncounted(lost)
        raise
