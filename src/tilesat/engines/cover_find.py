"""solve and check-unique by an exact-cover search (dancing links, :mod:`.dlx`; the compiled
exact cover, :mod:`.xcc_engine`): the board checks, then the search, with the LP's
certificate of "no tiling" after the search has had the LP's expected time
(:class:`~tilesat.certify.schedule.LpBudget`)."""

from __future__ import annotations

import itertools
import time
from typing import Callable, Iterator

import numpy as np

from ..certify.checks import obstruction, placement_check
from ..certify.schedule import LpBudget
from ..certify.verify import verify_tiling
from ..model.footprint import check_memory
from ..model.placements import Placements, generate_placements
from ..model.tiling import Tiling
from .base import Job, Progress

#: An exact-cover search: (placements, at most this many covers) -> each cover's placement indices.
Covers = Callable[[Placements, "int | None"], Iterator[np.ndarray]]


def find_covers(job: Job, count: int, progress: Progress, found: list[Tiling], stats: dict, covers: Covers,
                searching: str, solver: str) -> str | None:
    """:meth:`Engine.find <tilesat.engines.base.Engine.find>` by ``covers`` (``searching``: the
    progress line while it runs; ``solver``: its name in the stats)."""
    instance = job.instance
    t0 = time.perf_counter()
    check_memory(instance)
    stats.setdefault("certificate_check", {"ran": False, "why": "a board check answered first"})
    reason, placements, plan = obstruction(instance), None, None
    stats.update(placements=None, variables=None, clauses=None, encoding=None, card=None, solver=solver)
    if reason is None:
        progress("generating placements")
        placements = generate_placements(instance)
        reason = placement_check(placements)
        stats["placements"] = len(placements)
        plan = LpBudget(instance, placements, job.certificates, progress) if reason is None else None
    t1 = time.perf_counter()
    try:
        if reason is None:
            progress(searching)
            stream = covers(placements, count) if not (plan.pending and plan.budget == 0) else None
            if plan.pending and plan.budget > 0:  # the search first, for as long as the LP would take
                finished, first = plan.attempt(lambda: next(stream, None))
                if finished:
                    stream = iter([]) if first is None else itertools.chain([first], stream)
                else:
                    stream.close()
                    stream = None
            if plan.pending:
                cert = plan.run()
                if cert is not None:
                    stats["_certificate"], reason = cert, cert.sentence()
                    stream = iter([])
                elif stream is None:
                    progress(searching)
                    stream = covers(placements, count)
            for chosen in stream:
                found.append(verify_tiling(instance, Tiling.from_placements(placements, chosen.tolist())))
    finally:
        if plan is not None:
            stats["certificate_check"] = plan.report
        t2 = time.perf_counter()
        stats.update(compile_seconds=round(t1 - t0, 6), solve_seconds=round(t2 - t1, 6), seconds=round(t2 - t0, 6))
    return reason
