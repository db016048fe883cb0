"""Every process tilesat starts is started here, and none outlives it.

The children (forked engines: :class:`.control.Child`; ``--jobs`` workers:
:func:`process_pool`; external programs, ``ext:`` solvers: :func:`popen`; a
local Dask cluster's processes: :func:`adopt`) are started or registered
here, so that whatever way tilesat ends, they end too:

- **the parent-death signal**: a forked or exec'd child asks the kernel
  (``PR_SET_PDEATHSIG``, Linux) for SIGKILL when tilesat dies, even by SIGKILL;
- **the watchdog**: external programs run in a process group of their own
  (their own children included) and keep files in temporary folders; a small
  process of its own session, started the first time one is registered
  (:func:`temporary_folder`, :func:`popen`, :func:`adopt`), reads what to clean
  from a pipe, and when the pipe closes (tilesat has ended, however) kills the
  groups and processes still registered and removes the folders;
- **signals**: SIGTERM and SIGHUP (a supervisor, a job scheduler, a closed
  terminal) are handled as Ctrl-C: the run stops within a second, says what
  it found, and exits 128 + the signal (143, 129; 130 for Ctrl-C)
  (:func:`handle_interrupts`, :func:`interrupted_status`); only the first of
  a run raises, later ones are noted (whatever a user does with a second
  Ctrl-C, the run stops and says what it had); one that CPython drops in a
  callback it runs "unraisably" is raised again at the next poll, as is
  every one inside :func:`interrupts_at_polls`; once the command's work is
  done (:func:`work_done`) they change nothing, and the console script ends
  with the command's own status;
- **how many**: ``--jobs`` is at most :data:`JOBS_PER_CORE` per core
  (:func:`check_jobs`): more processes than that only wait for the cores.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from typing import Iterator

from ..errors import TilesatError

#: The signals that stop a run (the first one's 128 + number is the exit status).
INTERRUPTING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
#: ``--jobs`` beyond this many processes per core is refused: they would only
#: wait for a core (and each holds the placements and a solver).
JOBS_PER_CORE = 8


# --- how many ----------------------------------------------------------------------

def cores() -> int:
    """The cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def max_jobs() -> int:
    return JOBS_PER_CORE * cores()


def check_jobs(jobs: int, option: str = "--jobs") -> int:
    """``jobs``, or a one-line :class:`TilesatError` beyond :func:`max_jobs`."""
    if jobs > max_jobs():
        raise TilesatError(f"{option} {jobs}: at most {max_jobs()} on this machine "
                           f"({JOBS_PER_CORE} processes per core, {cores()} cores)")
    return jobs


# --- signals -----------------------------------------------------------------------

_RECEIVED: list[int] = []
# The pid of this process when a KeyboardInterrupt of :func:`_interrupt` was
# lost: raised inside a callback CPython runs "unraisably" (a weakref callback
# such as importlib's module-lock one, a ``__del__``, a gc callback), where it
# is printed as "Exception ignored" and dropped, so the run went on.
_LOST: list[int] = []
# The pid and time of the last interrupt raised here, until the command reports
# it (:func:`ignore_interrupts`): some C code swallows a KeyboardInterrupt raised
# in Python code it calls, silently (Cython's module init of
# numpy.random._generator, in numba's import: a listing ran on).
_UNREPORTED: list[float] = []
#: How long a run may go on after an interrupt before a poll raises it again: a
#: KeyboardInterrupt caught on purpose (a partial result) is reported sooner.
UNREPORTED_SECONDS = 0.3


# The pid of this process once an interrupt of this run has been raised as
# KeyboardInterrupt (:func:`_interrupt`) or is being reported
# (:func:`ignore_interrupts`): from then on further ones are only noted.
_STOPPING: list[int] = []


# The pid of this process while its interrupts wait for the run's next poll
# (:func:`interrupts_at_polls`) instead of raising wherever the code is.
_AT_POLLS: list[int] = []
# The pid of this process when it is the console script's: it ends with its
# command (:func:`ends_with_its_command`).
_ENDS_WITH_COMMAND: list[int] = []


def _mine(state: list) -> bool:
    return bool(state) and state[0] == os.getpid()


def _stopping() -> bool:
    return _mine(_STOPPING)


def _interrupt(signum, frame):
    """The first interrupt of a run raises KeyboardInterrupt (inside
    :func:`interrupts_at_polls`: at the next poll); later ones are only noted:
    one raised again while the first unwinds (in a clean-up, in the report, in
    typer's exit path) would cut the report short, and typer ends an escaped
    one silently with 130 (a second Ctrl-C 2 ms after the first did)."""
    if _stopping():
        return
    _STOPPING[:] = [os.getpid()]
    _RECEIVED.append(signum)
    _UNREPORTED[:] = [os.getpid(), time.monotonic()]
    if _mine(_AT_POLLS):
        _LOST[:] = [os.getpid()]  # raised at the next poll, as a lost one is
        return
    _LOST.clear()  # this one stands for it
    raise KeyboardInterrupt


def _keeping_lost_interrupts(previous):
    """A ``sys.unraisablehook`` that keeps, silently, the KeyboardInterrupt of
    an interrupt received (:func:`raise_lost_interrupt` raises it again at
    the run's next poll) and hands everything else to ``previous``."""

    def hook(unraisable):
        if _RECEIVED and issubclass(unraisable.exc_type, KeyboardInterrupt):
            _LOST[:] = [os.getpid()]
        else:
            previous(unraisable)

    return hook


def raise_lost_interrupt(unreported: bool = True) -> None:
    """Raise KeyboardInterrupt again, once, if an interrupt was lost in an
    unraisable callback (see ``_LOST``), or (``unreported``) the command has not
    reported one received UNREPORTED_SECONDS ago (``_UNREPORTED``); for the
    polls of a run (deadline checks), in the main thread of the process that lost it."""
    if not (_LOST or _UNREPORTED) or threading.current_thread() is not threading.main_thread():
        return
    pid = os.getpid()
    lost = _LOST and _LOST[0] == pid
    if unreported and _UNREPORTED and _UNREPORTED[0] == pid and time.monotonic() - _UNREPORTED[1] > UNREPORTED_SECONDS:
        lost = True
        _UNREPORTED.clear()  # once: a partial result's own polls after it are not cut short again
    if lost:
        _LOST.clear()
        raise KeyboardInterrupt


def interrupt_behind(error: BaseException) -> bool:
    """Whether ``error`` is what another library made of this run's interrupt:
    a KeyboardInterrupt in its chain of causes, as traceback prints it (a
    Ctrl-C inside a C extension's import comes out as ImportError
    "initialization failed", caused by the KeyboardInterrupt), and not yet
    reported (:func:`ignore_interrupts`: what a report's own errors carry is not)."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        return False
    seen = set()
    while error is not None and id(error) not in seen and _RECEIVED:
        if isinstance(error, KeyboardInterrupt):
            return True
        seen.add(id(error))
        error = error.__cause__ or (None if error.__suppress_context__ else error.__context__)
    return False


def handle_interrupts():
    """From here (the main thread) Ctrl-C, SIGTERM and SIGHUP each raise
    KeyboardInterrupt: the run stops and says what it had; one lost in an
    unraisable callback is raised again at the next poll
    (:func:`raise_lost_interrupt`), with no "Exception ignored" on stderr.
    Returns a function that puts the handlers back (for callers that run
    commands in-process and live on)."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    _STOPPING.clear()  # a command starting: the next interrupt is its first (a caller may have reported one before)
    previous = {signum: signal.signal(signum, _interrupt) for signum in INTERRUPTING}
    previous_hook = sys.unraisablehook
    sys.unraisablehook = _keeping_lost_interrupts(previous_hook)

    def restore():
        sys.unraisablehook = previous_hook
        if _mine(_ENDS_WITH_COMMAND):
            # the command has run and said what it had: the process only ends from here, with the command's
            # status (Python's handler would make a Ctrl-C now a traceback, or at exit a death by SIGINT)
            ignore_interrupts()
            return
        if signal.getsignal(signal.SIGINT) is _interrupt:
            signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C as Python has it
        if set(_RECEIVED) <= {signal.SIGINT}:  # after SIGTERM or SIGHUP the process is ending: further ones stay ignored
            for signum in (signal.SIGTERM, signal.SIGHUP):
                handler = previous[signum]
                signal.signal(signum, handler if handler is not None else signal.SIG_DFL)

    return restore


def ignore_interrupts() -> None:
    """After the first interrupt, further ones must not cut the report short (nor one lost before it).
    Ignored, not only noted: the interpreter's exit puts Python's handlers back to the default
    (death by the signal), not ignored ones."""
    _STOPPING[:] = [os.getpid()]  # first: signal.signal runs the handlers of signals pending, here
    interrupt_said()
    if threading.current_thread() is threading.main_thread():
        for signum in INTERRUPTING:
            signal.signal(signum, signal.SIG_IGN)


def work_done() -> None:
    """The command's work is done and what it had to say is said: an interrupt
    from here is only noted, and one lost during the work (that the work finished
    despite) is not raised after it (see :func:`ends_with_its_command` for the
    process's end)."""
    _STOPPING[:] = [os.getpid()]
    interrupt_said()


def ends_with_its_command() -> None:
    """This process is the console script's: it ends when its one command
    has run, so the handlers :func:`handle_interrupts` set are not put back
    after the command but ignore further interrupts."""
    _ENDS_WITH_COMMAND[:] = [os.getpid()]


@contextlib.contextmanager
def interrupts_at_polls() -> Iterator[None]:
    """Inside (the main thread), an interrupt is noted by the handler and raised
    at the run's next poll (:func:`raise_lost_interrupt`: the waits'
    ``control.wait_step``, deadline checks), not wherever the code is: for code
    that runs other code in the garbage collector's callbacks (hypothesis),
    where a KeyboardInterrupt is printed as "Exception ignored" and lost.
    Ctrl-C is handled so inside even where no command set the handlers (a
    library caller's run: a new run, its result says it was interrupted, and
    its handler is put back after)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    own = previous is not _interrupt
    outer = list(_AT_POLLS)
    if own:
        forget_interrupts()
    _AT_POLLS[:] = [os.getpid()]
    if own:
        signal.signal(signal.SIGINT, _interrupt)
    try:
        yield
    finally:
        if own:
            signal.signal(signal.SIGINT, previous if previous is not None else signal.SIG_DFL)
            forget_interrupts()  # said in the run's result: no later run's poll raises it
        _AT_POLLS[:] = outer


def interrupt_waiting() -> bool:
    """Whether an interrupt of this process waits for a poll (one inside
    :func:`interrupts_at_polls` after the last, or one lost); taken: the caller
    reports it, no poll raises it."""
    waiting = _mine(_LOST)
    if waiting:
        interrupt_said()
    return waiting


def interrupt_said() -> None:
    """The run has said, in its result, that it was interrupted: no poll raises that
    interrupt again (the report's own deadline checks included: one received
    UNREPORTED_SECONDS ago would cut the report short); later ones stay only noted.
    (Also how the others here forget an interrupt that waits: :func:`ignore_interrupts`,
    :func:`interrupt_waiting`, :func:`forget_interrupts`.)"""
    _LOST.clear()
    _UNREPORTED.clear()


def interrupted_status() -> int:
    """The exit status of an interrupted run: 128 + the signal (130 for Ctrl-C)."""
    return 128 + (_RECEIVED[0] if _RECEIVED else signal.SIGINT)


def forget_interrupts() -> None:
    """A new run in this process (in-process callers run several)."""
    _RECEIVED.clear()
    interrupt_said()
    _STOPPING.clear()


# --- the parent-death signal ---------------------------------------------------------

def _resolve_prctl():
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # not Linux: children then die by the kill() of the parent's exit paths
        return None


# Resolved once, here: a child must not look symbols up (dlopen takes the
# loader's lock, which another thread of the parent may have held at the fork).
_PRCTL = _resolve_prctl()
_PR_SET_PDEATHSIG = 1


def die_with_parent(signum: int = signal.SIGKILL) -> None:
    """Have the kernel send ``signum`` to this process when the thread that
    started it ends (even by SIGKILL); Linux only, a no-op elsewhere."""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, int(signum))


def child_started(parent: int) -> None:
    """First thing in every forked child: die with ``parent``; it holds no
    end of the watchdog's pipe (tilesat's death must close the pipe)."""
    die_with_parent()
    if os.getppid() != parent:  # the parent died before that: nobody waits for us
        os._exit(1)
    _Watchdog.forget_in_child()


def fork() -> int:
    """``os.fork()``, the child set up by :func:`child_started` (0 in the child)."""
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:
        child_started(parent)
    return pid


def process_pool(jobs: int, initializer=None, initargs: tuple = ()):
    """A pool of ``jobs`` forked worker processes (``concurrent.futures``),
    each dying with tilesat; SIGINT ignored there (the parent decides),
    SIGTERM and SIGHUP kill it at once (the parent's ``terminate()``)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    check_jobs(jobs)
    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    return ProcessPoolExecutor(jobs, mp_context=context, initializer=_pool_worker,
                               initargs=(os.getpid(), initializer, initargs))


def stop_pool(pool) -> None:
    """Kill a :func:`process_pool`'s workers at once (Ctrl-C, a deadline, a race won) and let it go.

    The executor's manager thread closes the pool's wake-up pipe on its way out, while the
    interpreter's exit writes to that pipe without a lock (CPython 3.11): joined here first,
    or an interrupted count could end with "Exception ignored ... Bad file descriptor"."""
    manager = getattr(pool, "_executor_manager_thread", None)  # shutdown() forgets it
    for proc in list(pool._processes.values()):
        proc.terminate()
    pool.shutdown(wait=False, cancel_futures=True)
    if manager is not None:
        manager.join(STOP_POOL_SECONDS)


#: How long an interrupted pool's manager thread may take to see its dead workers.
STOP_POOL_SECONDS = 0.5


def _pool_worker(parent: int, initializer, initargs) -> None:
    child_started(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)
    if initializer is not None:
        initializer(*initargs)


def popen(argv: list[str], **kwargs) -> subprocess.Popen:
    """An external program in a process group of its own (its children
    included), registered with the watchdog until :func:`release`; it dies
    with tilesat (parent-death signal, and the watchdog's kill)."""
    parent = os.getpid()

    def exec_child():
        die_with_parent()
        if os.getppid() != parent:
            os._exit(1)

    process = subprocess.Popen(argv, start_new_session=True, preexec_fn=exec_child, **kwargs)
    _Watchdog.send("group", process.pid)
    return process


def release(process: subprocess.Popen) -> None:
    """Kill what is left of ``process``'s group (a wrapper's children), reap
    it, and tell the watchdog it is gone."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    _Watchdog.send("-group", process.pid)


def adopt(pids) -> None:
    """Processes tilesat did not start itself (a Dask cluster's): killed by
    the watchdog if tilesat dies before :func:`disown`."""
    for pid in pids:
        _Watchdog.send("pid", pid)


def disown(pids) -> None:
    for pid in pids:
        _Watchdog.send("-pid", pid)


def descendants(pid: int | None = None) -> list[int]:
    """The processes below ``pid`` (this one by default), from /proc (Linux)."""
    pid = os.getpid() if pid is None else pid
    parents: dict[int, list[int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    parents.setdefault(int(f.read().rsplit(")", 1)[1].split()[1]), []).append(int(name))
            except (OSError, ValueError, IndexError):
                pass
    found, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), ()):
            found.append(child)
            todo.append(child)
    return found


def make_folder(prefix: str = "tilesat-") -> str:
    """A new temporary folder, removed by the watchdog if tilesat dies before :func:`remove_folder`."""
    path = tempfile.mkdtemp(prefix=prefix)
    _Watchdog.send("folder", path)
    return path


def remove_folder(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)
    _Watchdog.send("-folder", path)


@contextlib.contextmanager
def temporary_folder(prefix: str = "tilesat-") -> Iterator[str]:
    """A temporary folder, removed on leaving, and by the watchdog if tilesat dies first."""
    path = make_folder(prefix)
    try:
        yield path
    finally:
        remove_folder(path)


# --- the watchdog -------------------------------------------------------------------------

# Runs as ``python -S -c``: reads "KIND VALUE" lines (KIND: group, pid, folder;
# a leading '-' forgets one), and at the end of its input (tilesat has ended)
# kills the groups and processes and removes the folders still registered.
_WATCHDOG = r"""
import os, shutil, signal, sys
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, signal.SIG_IGN)
kept = {"group": set(), "pid": set(), "folder": set()}
for line in sys.stdin.buffer:
    kind, _, value = line.decode("utf-8", "surrogateescape").rstrip("\n").partition(" ")
    if kind.startswith("-"):
        kept.get(kind[1:], set()).discard(value)
    elif kind in kept:
        kept[kind].add(value)
for group in kept["group"]:
    try:
        os.killpg(int(group), signal.SIGKILL)
    except (OSError, ValueError):
        pass
for pid in kept["pid"]:
    try:
        os.kill(int(pid), signal.SIGKILL)
    except (OSError, ValueError):
        pass
for folder in kept["folder"]:
    shutil.rmtree(folder, ignore_errors=True)
"""


class _Watchdog:
    """The watchdog of this process (started on the first registration)."""

    _lock = threading.Lock()
    _process: subprocess.Popen | None = None
    _owner: int | None = None

    @classmethod
    def send(cls, kind: str, value) -> None:
        with cls._lock:
            if cls._owner != os.getpid():
                if kind.startswith("-"):
                    return  # nothing registered from this process
                cls._start()
            try:
                cls._process.stdin.write(f"{kind} {value}\n".encode("utf-8", "surrogateescape"))
                cls._process.stdin.flush()
            except (OSError, ValueError):  # the watchdog is gone: the parent-death signal is what is left
                pass

    @classmethod
    def _start(cls) -> None:
        cls._process = subprocess.Popen(
            [sys.executable, "-S", "-c", _WATCHDOG], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)  # a Ctrl-C to tilesat's group spares it
        cls._owner = os.getpid()

    @classmethod
    def forget_in_child(cls) -> None:
        """In a forked child: close its copy of the pipe (the watchdog must see
        the end of its input when tilesat ends, not when the last child does)."""
        if cls._process is not None and cls._owner != os.getpid():
            with contextlib.suppress(OSError, ValueError):
                os.close(cls._process.stdin.fileno())
            _CLOSED.append(cls._process)  # kept: collecting it would close the number again (another file's by then)
            cls._process = cls._owner = None


_CLOSED: list = []
