"""When the LP looks for a certificate of "no tiling" (:mod:`.certificate`): one
schedule for every question.

``certificates=`` (:data:`CERTIFICATE_MODES`): ``"always"`` runs the LP first,
``False`` never, ``True`` (the default) only where :func:`.certificate.lp_gate`
says it may pay, and then *after* the work has had a head start, so that the
many runs that end quickly never pay for HiGHS.  The head start takes one of
two forms, by what the work can do:

- a search that can pause (solve, check-unique) runs alone for the LP's
  expected time, then the LP runs here, capped (:class:`LpBudget`);
- a count or a listing, which cannot pause, has the LP raced beside it in a
  child once it has run a while (:class:`LpRace`); a certificate stops it
  like a deadline (:class:`Certified`).
"""

from __future__ import annotations

import contextlib
import os
import time
from typing import Callable, TypeVar

from ..errors import TilesatError
from ..model.instance import Instance
from ..model.placements import Placements
from ..running.control import Child, ChildError, TimedOut, deadline, may_start_children, time_limit
from .certificate import NOT_PLAIN, Certificate, CertificateError, check_certificate, load_lp, lp_estimate, lp_gate, quick_check

T = TypeVar("T")

#: ``certificates=``: True (the LP where it may pay, after a head start), "always" (the LP first, on any board), False (never).
CERTIFICATE_MODES = (True, "always", False)


def check_mode(mode, default_words: str) -> None:
    if mode not in CERTIFICATE_MODES:
        raise TilesatError(f"certificates={mode!r}: use True ({default_words}), 'always' or False")


def certificate_mode(flag: bool | None) -> bool | str:
    """``--certificate`` (True), ``--no-certificate`` (False) or neither (None) as a request's
    ``certificates``: "always" first, never, or where it is worth it (True)."""
    return True if flag is None else ("always" if flag else False)


class LpBudget:
    """The LP after a search has had its turn, in this process.

    Where :func:`~tilesat.certify.certificate.lp_gate` allows it, the search runs
    first for ``budget`` seconds, what the LP is expected to take
    (:func:`~tilesat.certify.certificate.lp_estimate`); a search that ends within it
    (any board with a tiling found quickly, any easy "none") never pays for
    the LP.  Otherwise :meth:`run` tries the LP, for at most ``LP_CAP`` times
    its estimate, and the search starts again when it finds nothing: at
    worst the LP's time more than the search alone.  ``report`` says what happened
    (the stats' ``certificate_check``)."""

    # The LP may take 20x its estimate (at least 2 s): a feasible LP takes up
    # to 6x, a loaded machine more, and a search resumed after an LP cut
    # short is the exponential one this check is there to avoid.
    LP_CAP, LP_CAP_MIN = 20, 2.0

    def __init__(self, instance: Instance, placements: Placements, enabled: bool | str, progress: Callable | None = None):
        self.instance, self.placements, self._progress = instance, placements, progress
        self.pending, self.budget = False, 0.0
        check_mode(enabled, "when worth it")
        if not enabled or not instance.plain:
            self.report = {"ran": False, "why": "turned off" if not enabled else NOT_PLAIN}
            return
        if enabled == "always":  # asked for: the LP first, uncapped
            self.report = {"ran": False, "why": "asked for"}
            self.pending, self.budget, self.LP_CAP = True, 0.0, None
            return
        run, why = lp_gate(placements)
        self.report = {"ran": False, "why": why}
        if run:
            self.pending, self.budget = True, lp_estimate(placements)

    def done(self, why: str) -> None:
        self.pending = False
        self.report = {"ran": False, "why": why}

    def attempt(self, work: Callable[[], T]) -> tuple[bool, T | None]:
        """``work()`` for at most the budget, the search before the LP: (True, its
        value) when it ended within it (the LP is then not needed), else (False,
        None): the budget passed (the whole run's deadline passing raises)."""
        try:
            with time_limit(self.budget):
                value = work()
        except TimedOut:
            if deadline().expired():
                raise
            return False, None
        self.done("the search finished first")
        return True, value

    def run(self) -> Certificate | None:
        """The LP (capped); a checked certificate or None."""
        self.pending = False
        if self._progress is not None:
            self._progress("looking for a certificate of 'no tiling' (LP)")
        t0 = time.perf_counter()
        outer = deadline()
        cert, why = None, "the search went on past the LP's estimated time"
        if self.LP_CAP is None:
            why = "asked for"
        load_lp()  # outside the LP's own limit
        try:
            with time_limit(None if self.LP_CAP is None else max(self.LP_CAP_MIN, self.LP_CAP * self.budget)):
                cert = quick_check(self.instance, self.placements, gated=self.LP_CAP is not None)
        except TimedOut:
            if outer.expired():
                raise
            why += "; the LP passed its own limit, so the search resumed"
        self.report = {"ran": True, "why": why, "seconds": round(time.perf_counter() - t0, 6),
                       "found": cert is not None, **(cert.stats if cert is not None else {})}
        return cert


class Certified(Exception):
    """The LP beside the count won: a checked certificate that there is no tiling."""

    def __init__(self, certificate: Certificate):
        super().__init__(certificate.sentence())
        self.certificate = certificate


#: The count runs alone for this long (at least) before the LP's child is
#: forked: a count that ends sooner (most of them) never pays for the LP, whose
#: start (a fork, HiGHS's import) costs a short count a noticeable share.
RACE_HEAD_START = 0.5
#: HiGHS's import in a fresh child, added to the LP's estimate (lp_estimate leaves it out).
LP_LOAD_SECONDS = 0.25


def _lp_target(conn, instance: Instance, placements: Placements) -> None:
    """In the LP's child: the certificate check, its answer (a Certificate or None) sent back."""
    with contextlib.suppress(OSError):
        os.nice(10)  # where the count and the LP share a core, the count goes first
    load_lp()
    conn.send(("ok", quick_check(instance, placements, gated=False)))


class LpRace:
    """The LP raced beside a count or a listing, in a child of its own.

    Run before the count, the LP would cost every count it does not answer
    0.2 s or more (loading HiGHS, then the LP): as much as the whole count of
    6x10 pentominoes.  So, where :func:`lp_gate` allows it, the LP races
    beside the count: :meth:`start` starts the clock as the count starts, and
    :meth:`poll` (a :func:`~tilesat.running.control.watching` hook, run at each of
    the count's 50 ms polls) forks the LP into its own child once the count
    has had its head start (``head_start``: what the LP is expected to take,
    HiGHS's import included, at least RACE_HEAD_START; a count that ends
    sooner pays nothing), then looks at the LP's pipe without waiting: a
    certificate that checks here too raises :class:`Certified`, which stops
    the count like a deadline (its children killed on the way out).  The
    first tiling found, or the count's end, stops the LP (:meth:`lost`,
    :meth:`stop`).  ``report`` says what happened (the result's
    ``certificate_check``); ``not_here`` turns the race off, saying why."""

    def __init__(self, instance: Instance, placements: Placements, mode: bool | str, what: str = "count",
                 not_here: str | None = None):
        check_mode(mode, f"raced beside the {what}")
        if not instance.plain:
            mode, not_here = True, NOT_PLAIN  # no LP: the report says why
        self.instance, self.placements, self.mode, self.what = instance, placements, mode, what
        self.child: Child | None = None
        self.certificate: Certificate | None = None
        self.head_start = max(RACE_HEAD_START, LP_LOAD_SECONDS + lp_estimate(placements))
        self.runs, why = False, "turned off"
        if mode is True:
            self.runs, why = lp_gate(placements)
            if not_here is not None:  # the engine answers 0 as fast as the LP would
                self.runs, why = False, not_here
            elif self.runs and not may_start_children():
                self.runs, why = False, "already in a child process: no race is started from here"
            elif self.runs:
                why = (f"few open cells are forced: the LP runs in a child beside the {what} once it has "
                       f"run {self.head_start:.2f} s (the LP is expected to take {lp_estimate(placements):.2f} s)")
        elif mode == "always":
            why = f"asked for: the LP before the {what}"
        self.report: dict = {"ran": False, "why": why}
        self.pending = False  # the LP's child is yet to be forked
        self._t0 = 0.0

    # -- "always": the LP first, here
    def first(self) -> Certificate | None:
        """The LP before anything (``certificates="always"``), under the current deadline."""
        self._t0 = time.perf_counter()
        load_lp()
        cert = quick_check(self.instance, self.placements, gated=False)
        self._answer(cert)
        return self.certificate

    # -- True: raced
    def start(self) -> None:
        """The count starts now; the LP's turn comes after its head start."""
        self.pending = self.runs
        self._t0 = time.perf_counter()
        self._first_poll = None

    def poll(self) -> None:
        """The LP forked when the head start is over; its answer if it has
        come (no waiting); raises :class:`Certified` when it is a certificate."""
        if self.pending:
            # the head start counts from the count's first wait: loading an engine
            # here before it (numba, 1-2 s in a fresh process) is not counting
            now = time.perf_counter()
            self._first_poll = self._first_poll or now
            if now - self._first_poll < self.head_start:
                return
            self.pending = False
            self.child = Child(_lp_target, self.instance, self.placements)
            self.report["ran"] = True
            return
        if self.child is None or not self.child.ready():
            return
        child, self.child = self.child, None
        try:
            message = child.recv()
        except ChildError as e:
            self.report.update(found=False, error=str(e), seconds=self._seconds())
            return
        finally:
            child.kill()
        self._answer(message[1])
        if self.certificate is not None:
            raise Certified(self.certificate)

    def _answer(self, cert: Certificate | None) -> None:
        self.report.update(ran=True, found=False, seconds=self._seconds())
        if cert is None:
            self.report["why"] += "; the LP found no certificate (its relaxation is feasible)"
            return
        try:
            check_certificate(self.instance, cert)  # again, here: nothing unchecked is reported
        except CertificateError as e:
            self.report.update(error=f"BUG: the LP's certificate does not check: {e}")
            return
        self.certificate = cert
        self.report.update(found=True, **cert.stats)

    def _seconds(self) -> float:
        return round(time.perf_counter() - self._t0, 6)

    def lost(self, why: str) -> None:
        """A tiling exists (or the count is over): the LP can only lose; it is stopped (or never started)."""
        if self.pending:
            self.pending = False
            self.report["why"] += f"; {why} within the head start, so the LP never ran"
        if self.child is not None:
            self.child.kill()
            self.child = None
            self.report.update(found=False, seconds=self._seconds())
            self.report["why"] += f"; {why}, so the LP was stopped"

    def stop(self, finished: bool) -> None:
        """The count is over: a last look at the LP's answer when it ``finished`` (not
        stopped by a deadline or Ctrl-C), then the LP stopped."""
        if finished:
            with contextlib.suppress(Certified, TimedOut):
                self.poll()
        self.lost(f"the {self.what} finished first" if finished else f"the {self.what} was stopped")
