"""Runs under control: time limits, Ctrl-C and clean-up, written once for every engine.

Two pieces:

- the **deadline** of the current run (:func:`time_limit`, :func:`deadline`): a
  context variable that every engine consults while it waits, so that
  ``solve(instance, timeout=5)`` bounds whatever runs underneath (SAT solvers,
  dancing links, model counters, external commands) without passing the
  number through every call;
- the **child process** (:class:`Child`): the engines whose C code cannot be
  stopped from Python run in a forked child that the parent waits on in short
  polls and kills (SIGKILL) when the deadline passes, on Ctrl-C, or when
  abandoned.  Measured reasons: PySAT's CaDiCaL holds the GIL for a whole
  ``solve()`` (a timer thread never runs), and its SIGINT handler unwinds
  with ``longjmp``, which left ``free()`` deadlocked in 1 of 12 interrupts;
  xcover's numba search and ganak do not return to Python until they finish.
  A killed child takes its solver with it: the parent never calls into C
  code an interrupt went through.

The child blocks SIGINT (a terminal's Ctrl-C goes to the whole process
group; the parent decides) and dies with the parent (``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import os
import signal
import sys
import threading
import time
from typing import Any, Callable, Iterator

from ..errors import TilesatError
from .processes import INTERRUPTING, fork, raise_lost_interrupt

#: How often a waiting parent wakes up: the bound on the extra time a timeout
#: or Ctrl-C takes to act, and the progress display's refresh.
POLL_SECONDS = 0.05
#: At a deadline, how long the workers of a count get to hand back what their units had counted.
STOP_GRACE = 0.5


class TimedOut(Exception):
    """The run's time limit passed.  ``found`` holds what was found before,
    where the raiser knows (tilings, a count, a packing)."""

    def __init__(self, seconds: float | None = None, found: Any = None):
        super().__init__(f"time limit of {seconds:g} s reached" if seconds else "time limit reached")
        self.seconds = seconds
        self.found = found

    def __reduce__(self):  # crosses process boundaries (count --jobs workers) intact
        return TimedOut, (self.seconds, self.found)


class Deadline:
    """A point in time (``perf_counter``) the current run must stop by; no limit when ``seconds`` is None."""

    def __init__(self, seconds: float | None, start: float | None = None):
        self.seconds = seconds
        self.start = time.perf_counter() if start is None else start  # e.g. when the command started
        self.at = None if seconds is None else self.start + seconds

    def remaining(self) -> float | None:
        return None if self.at is None else self.at - time.perf_counter()

    def expired(self) -> bool:
        return self.at is not None and time.perf_counter() >= self.at

    def check(self) -> None:
        """Raises :class:`TimedOut` past the deadline, and KeyboardInterrupt for a
        Ctrl-C lost in an unraisable callback (:func:`.processes.raise_lost_interrupt`)."""
        raise_lost_interrupt()
        if self.expired():
            raise TimedOut(self.seconds)


def process_start() -> float:
    """When this process started, on the ``perf_counter`` clock (Linux:
    /proc; elsewhere: now).  A command's --timeout counts from here, so that
    the imports are inside it: the user times the whole command."""
    try:
        with open("/proc/self/stat") as f:
            ticks = int(f.read().rsplit(")", 1)[1].split()[19])  # field 22, starttime
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        age = uptime - ticks / os.sysconf("SC_CLK_TCK")
        return time.perf_counter() - max(0.0, age)
    except (OSError, ValueError, IndexError):
        return time.perf_counter()


_NO_LIMIT = Deadline(None)
_CURRENT: contextvars.ContextVar[Deadline] = contextvars.ContextVar("tilesat_deadline", default=_NO_LIMIT)


def check_timeout(seconds: float | None) -> float | None:
    """A timeout as given by a user: None, or a finite number of seconds above 0."""
    if seconds is None:
        return None
    try:
        value = float(seconds)
    except (TypeError, ValueError):
        raise TilesatError(f"--timeout {seconds!r}: give a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise TilesatError(f"--timeout {seconds}: must be a finite number of seconds above 0")
    return value


def deadline() -> Deadline:
    """The deadline of the run in progress (one without a limit outside :func:`time_limit`)."""
    return _CURRENT.get()


@contextlib.contextmanager
def time_limit(limit: float | Deadline | None) -> Iterator[Deadline]:
    """Bound everything run inside to ``limit``: seconds from now (validated;
    None: no new limit) or a :class:`Deadline` made earlier (a search that
    resumes between yields).  Nested limits keep the earlier end."""
    inner = limit if isinstance(limit, Deadline) else Deadline(check_timeout(limit))
    outer = _CURRENT.get()
    if outer.at is not None and (inner.at is None or outer.at < inner.at):
        inner = outer
    token = _CURRENT.set(inner)
    try:
        yield inner
    finally:
        _CURRENT.reset(token)


@contextlib.contextmanager
def sigint_held():
    """A Ctrl-C (or SIGTERM, SIGHUP: :data:`.processes.INTERRUPTING`) waits
    while inside and surfaces on the way out: for the short steps that must
    not be cut in two, such as freeing a solver (a KeyboardInterrupt between
    PySAT's free and its forgetting the pointer freed it twice) or forking.
    Two layers: Python's handlers are swapped for ones that only note the
    signal (blocking it in this thread is not enough: the kernel hands it to
    another thread, OpenBLAS keeps some, and Python still raises it here),
    and the signals are blocked in this thread so a child forked inside
    starts with them blocked."""
    if threading.current_thread() is not threading.main_thread():
        yield  # Python runs its handlers in the main thread only
        return
    caught: list[int] = []
    previous = {signum: signal.signal(signum, lambda signum, frame: caught.append(signum)) for signum in INTERRUPTING}
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, set(INTERRUPTING))
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
        for signum, handler in previous.items():
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)
        if caught:
            handler = previous[caught[0]]
            if callable(handler):
                handler(caught[0], None)  # Python's own handler (KeyboardInterrupt), now
            elif handler == signal.SIG_DFL and caught[0] != signal.SIGINT:
                signal.raise_signal(caught[0])  # what it would have done: end the process


# Callables every poll of this process runs (:func:`watching`), each with the
# pid that registered it: a forked child inherits the variable, not the job.
_WATCHERS: contextvars.ContextVar[tuple] = contextvars.ContextVar("tilesat_watchers", default=())
_IN_WATCHER = threading.local()  # a watcher that waits (Child.recv) must not run the watchers again


@contextlib.contextmanager
def watching(fn: Callable[[], None]) -> Iterator[None]:
    """Run ``fn()`` at every poll of every wait inside (:func:`wait_step`,
    about every POLL_SECONDS), in this process only; ``fn`` may raise to stop
    the run, like a deadline (e.g. count stops when a race beside it is won)."""
    token = _WATCHERS.set(_WATCHERS.get() + ((os.getpid(), fn),))
    try:
        yield
    finally:
        _WATCHERS.reset(token)


def run_watchers() -> None:
    """The watchers' poll, for code that waits without :func:`wait_step` (or ends a run)."""
    raise_lost_interrupt()
    watchers = _WATCHERS.get()
    if not watchers or getattr(_IN_WATCHER, "on", False):
        return
    pid = os.getpid()
    _IN_WATCHER.on = True
    try:
        for owner, fn in watchers:
            if owner == pid:
                fn()
    finally:
        _IN_WATCHER.on = False


def wait_step(limit: Deadline | None = None) -> float:
    """How long the next poll may sleep; raises :class:`TimedOut` when the
    deadline has passed, or whatever a watcher (:func:`watching`) raises."""
    limit = limit or deadline()
    limit.check()
    run_watchers()
    remaining = limit.remaining()
    return POLL_SECONDS if remaining is None else max(0.0, min(POLL_SECONDS, remaining))


# --- the child process ---------------------------------------------------

_IN_CHILD = False  # set in a process forked by Child


def _child_main(target, args, conn, parent_end) -> None:
    """The child's whole life, ended by ``os._exit``: it never returns into the
    caller's frames (no ``finally``, no atexit handler, no flush of the
    parent's buffered output).  SIGINT, SIGTERM and SIGHUP stay blocked as
    the fork left them (the parent decides); it dies with the parent
    (:func:`.processes.fork`)."""
    global _IN_CHILD
    code = 1
    try:
        _IN_CHILD = True
        parent_end.close()
        try:
            target(conn, *args)
            code = 0
        except BaseException as e:  # noqa: BLE001 - reported by the parent as one line
            try:
                conn.send(("error", f"{type(e).__name__}: {e}".strip()))
            except (OSError, ValueError):
                pass
        conn.close()
    finally:
        os._exit(code)


class ChildError(Exception):
    """The child failed: it sent an error, or died without a word."""


class Child:
    """``target(conn, *args)`` in a forked child, talking over a duplex pipe.

    The parent side sends with :meth:`send` and waits with :meth:`recv`,
    which honours the current deadline (:class:`TimedOut`) and Ctrl-C
    (``KeyboardInterrupt``), killing the child in both cases.  The child
    reports a failure as ``("error", text)``, which :meth:`recv` raises as
    :class:`ChildError`.  Use as a context manager: leaving it kills the child.

    A bare ``os.fork``, not ``multiprocessing.Process``: the child does only
    what is written in :func:`_child_main` (multiprocessing's start-up closes
    stdin, runs after-fork hooks and flushes the standard streams at exit,
    each a lock the parent may have held at the fork), and the parent waits
    on its pid alone.
    """

    def __init__(self, target: Callable, *args):
        if not hasattr(os, "fork"):
            raise TilesatError("running engines under control needs fork (Linux or macOS)")
        import multiprocessing  # here: a count in this process needs none of it

        self._conn, child_conn = multiprocessing.Pipe(duplex=True)
        self.pid: int | None = None
        self.exitcode: int | None = None
        # The child starts with SIGINT blocked (the mask is inherited), so no
        # Ctrl-C lands in it before it is set up; here a pending one is
        # delivered when the mask is restored, after self.pid is known.
        try:
            with sigint_held():
                pid = fork()
                if pid == 0:
                    _child_main(target, args, child_conn, self._conn)  # never returns
                self.pid = pid
        finally:
            child_conn.close()

    def _ended(self, block: bool = False) -> bool:
        """Whether the child has ended (reaped, its exit code kept)."""
        if self.exitcode is not None or self.pid is None:
            return True
        try:
            pid, status = os.waitpid(self.pid, 0 if block else os.WNOHANG)
        except ChildProcessError:  # reaped elsewhere
            self.exitcode = -1
            return True
        if pid == 0:
            return False
        self.exitcode = os.waitstatus_to_exitcode(status)
        return True

    def is_alive(self) -> bool:
        return not self._ended()

    def ready(self) -> bool:
        """Whether :meth:`recv` would return (or fail) at once: a message or the child's end is waiting."""
        try:
            return self._conn.poll()
        except (OSError, ValueError):  # closed by kill()
            return True

    def send(self, message) -> None:
        try:
            self._conn.send(message)
        except (BrokenPipeError, ConnectionResetError, OSError):
            raise ChildError(self._death()) from None

    def recv(self):
        """The child's next message, waiting under the current deadline."""
        try:
            while not self._conn.poll(wait_step()):
                if not self.is_alive() and not self._conn.poll():
                    raise ChildError(self._death())
            message = self._conn.recv()
        except EOFError:
            raise ChildError(self._death()) from None
        except BaseException:  # TimedOut, KeyboardInterrupt: the child goes at once
            self.kill()
            raise
        if isinstance(message, tuple) and len(message) == 2 and message[0] == "error":
            self.kill()
            raise ChildError(message[1])
        return message

    def _death(self) -> str:
        give_up = time.monotonic() + 1
        while not self._ended() and time.monotonic() < give_up:
            time.sleep(0.01)
        code = self.exitcode
        if code is not None and code < 0:
            try:
                return f"it was killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"it was killed by signal {-code}"
        return f"it stopped without an answer (exit code {code})"

    def kill(self) -> None:
        if not self._ended():
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._ended(block=True)  # SIGKILL cannot be caught: this returns at once
        self._conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.kill()


def _call_target(conn, fn, args):
    conn.send(("ok", fn(*args)))


def call_in_child(fn: Callable, *args, what: str = "the engine"):
    """``fn(*args)`` in a forked child, its (picklable) result returned here,
    under the current deadline and Ctrl-C.  A failure in the child is a
    :class:`TilesatError` naming ``what``.  Inside a child already, here."""
    if not may_start_children():
        return fn(*args)
    with Child(_call_target, fn, args) as child:
        try:
            return child.recv()[1]
        except ChildError as e:
            raise TilesatError(f"{what} failed: {e}") from None


def stream_from_child(fn: Callable, *args, what: str = "the engine") -> Iterator:
    """The items of the iterable ``fn(*args)``, produced in a forked child and
    streamed back in batches (see :func:`_stream_target`); stops the child
    when the consumer stops, on Ctrl-C and at the deadline.  Inside a child already, here."""
    if not may_start_children():
        yield from fn(*args)
        return
    with Child(_stream_target, fn, args) as child:
        while True:
            try:
                message = child.recv()
            except ChildError as e:
                raise TilesatError(f"{what} failed: {e}") from None
            if message is None:
                return
            yield from message


# The child sends its first items one by one (a listing shows them at once),
# then in batches (pickling each of a count's 10^4 tilings alone costs a few
# per cent), at least every BATCH_SECONDS while items keep coming.
SINGLES, BATCH, BATCH_SECONDS = 100, 256, 0.05


def _stream_target(conn, fn, args) -> None:
    batch, sent, last = [], 0, time.perf_counter()
    for item in fn(*args):
        batch.append(item)
        now = time.perf_counter()
        if sent < SINGLES or len(batch) >= BATCH or now - last >= BATCH_SECONDS:
            conn.send(batch)
            sent, batch, last = sent + len(batch), [], now
    if batch:
        conn.send(batch)
    conn.send(None)


def isolated(fn: Callable, *args, what: str = "the engine", preload: Callable[[], None] | None = None):
    """``fn(*args)`` where its C code can be stopped: here when this process
    is a child already (its parent stops it), else in a forked child
    (:func:`call_in_child`).  ``preload`` (an engine's compiled code) is
    loaded here first so that the child inherits it, unless a time limit is
    set: the import (1-2 s of numba) could not be stopped here, the child
    loads it instead."""
    if in_child_process():
        return fn(*args)
    load_before_fork(preload)
    return call_in_child(fn, *args, what=what)


def isolated_stream(fn: Callable, *args, what: str = "the engine",
                    preload: Callable[[], None] | None = None) -> Iterator:
    """The items of ``fn(*args)``, as :func:`isolated` runs a call: here in a
    child, else streamed from a forked one (:func:`stream_from_child`)."""
    if in_child_process():
        return iter(fn(*args))
    load_before_fork(preload)
    return stream_from_child(fn, *args, what=what)


def load_before_fork(load: Callable[[], None] | None) -> None:
    """Load an engine's compiled code here, before forking its children, so
    that they inherit it; under a time limit the child loads it instead (the
    import takes 1-2 s of numba that nothing could stop here)."""
    if load is not None and deadline().at is None:
        load()


def may_start_children() -> bool:
    """False inside a :class:`Child` or a worker pool's daemonic process:
    code there runs its engines in-process, and the parent that started it
    is the one that stops it."""
    mp = _multiprocessing()
    return not _IN_CHILD and not (mp is not None and mp.current_process().daemon)


def in_child_process() -> bool:
    """True in a process forked by :class:`Child` or a worker pool (nested children are not started)."""
    mp = _multiprocessing()
    return _IN_CHILD or (mp is not None and mp.parent_process() is not None)


def _multiprocessing():
    """multiprocessing if this process has imported it: a worker of a pool has (the pool's parent did,
    before forking it); a process that has not is no worker, and need not pay the import."""
    return sys.modules.get("multiprocessing")
