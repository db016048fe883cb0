"""One process per API request: the library asked the request's question on
its instance in a temporary directory, killable at any moment.

Why a process and not a thread: the engines' C code (CaDiCaL, numba) cannot
be stopped from Python, and a request whose tab has moved on (a newer edit) or
whose time is up must stop at once without disturbing the other tabs' runs.

Why a forkserver: the server's threads (uvicorn, the event loop) may hold
locks at the moment of a plain ``fork``; a forkserver is a fresh interpreter,
started before those threads, that imported the library once
(``set_forkserver_preload``: :mod:`.answers`), so each request is a fork of a
clean, warm process: no interpreter start, no imports.  :mod:`.warm` also runs
a first check-unique and count there, so a request pays only the fork (the
figures: docs/benchmarks, scripts/bench_studio.py).

The child (:mod:`.answers`) builds the command's request objects from the
request's checked options and calls the library function the command calls;
the document goes to a file as stdout, an error's one line to stderr, with
the CLI's exit status, so the answer is exactly what ``tilesat COMMAND --json``
prints and says (``error: ...``).
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import multiprocessing.connection
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import types
from dataclasses import dataclass, field

from ..running.processes import die_with_parent
from ..running.stdout_guard import reserve_stdout

#: How much lower the commands' CPU priority is than the server's: under load
#: the event loop still answers at once (/api/status, 503s, finished runs).
COMMAND_NICENESS = 10

#: Extra seconds a command gets past its own ``--timeout`` (which it honours
#: itself, answering "unknown") before the server kills it.
KILL_GRACE = 3.0

_context = None
#: The process ids of the commands running now (for tests and the status page).
running_pids: set[int] = set()
#: The folder that holds every request's folder: named to the forkserver, which
#: removes it when it ends (even when the server was killed: it sees its pipe close).
ROOT_VARIABLE = "TILESAT_STUDIO_ROOT"
#: Left in that folder when the server stops the forkserver itself (it then
#: removes multiprocessing's own folder as it exits; a killed server cannot).
STOP_MARK = ".stopped-by-the-server"


def start_forkserver():
    """Start the forkserver (with tilesat's CLI imported) now, before any
    server thread exists.  Idempotent; returns the multiprocessing context."""
    global _context
    if _context is None:
        os.environ[ROOT_VARIABLE] = tempfile.mkdtemp(prefix="tilesat-studio-")
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["tilesat.studio.answers", "tilesat.studio.worker", "tilesat.studio.warm"])
        from multiprocessing import forkserver

        _without_main(forkserver.ensure_running)
        _context = ctx
    return _context


_MAIN_SWAP = threading.Lock()

#: Held while multiprocessing reads a command's exit status from its sentinel (a pipe from the
#: forkserver), which only one thread may do: ``Process.start`` polls every earlier child too
#: (``multiprocessing.process._cleanup``), and when that raced a request's own ``join``, the
#: loser read nothing and took the status for 255.  Taken only once the sentinel is readable.
_SENTINELS = threading.Lock()


def _without_main(start):
    """Call ``start`` (a process start) with an empty ``__main__``: multiprocessing
    tells each new process to run the parent's main script again when it was
    started from a file (pytest's console script, a benchmark script: their
    imports, 0.1-0.3 s a request, and their side effects); the studio's
    processes need only tilesat."""
    main = sys.modules["__main__"]
    with _MAIN_SWAP:
        sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            return start()
        finally:
            sys.modules["__main__"] = main


@dataclass(frozen=True)
class Call:
    """One request as the library is asked it: the command, its options checked
    (name -> value, as the command-line option of that name gives it), the
    pictures asked for (``svg``, ``png``, ``pdf``), the time limit in seconds,
    and each command's memory limit (bytes; None: the default)."""

    command: str
    options: dict
    pictures: tuple[str, ...] = ()
    limit: float = 30.0
    memory: int | None = None

    @property
    def outputs(self) -> list[str]:
        """The files the command writes in its directory, read back as the answer's."""
        return [f"tiling.{kind}" for kind in self.pictures] + (["formula.cnf"] if self.command == "export" else [])


@dataclass
class Outcome:
    """What a finished (or stopped) command left."""

    status: int | None  # the exit status; None when the server killed it
    stdout: bytes = b""
    stderr: str = ""
    files: dict[str, bytes] = field(default_factory=dict)  # outputs the command wrote (svg, png, cnf)
    too_large: dict[str, int] = field(default_factory=dict)  # outputs not read: their sizes
    seconds: float = 0.0
    stopped: str | None = None  # "time limit" or "client gone" when killed

    def error_line(self) -> str:
        """The command's ``error: ...`` line without its prefix (the last one, if several)."""
        lines = [ln for ln in self.stderr.splitlines() if ln.strip()]
        for line in reversed(lines):
            if line.startswith("error: "):
                return line[len("error: "):]
        return lines[-1] if lines else f"the command ended with status {self.status}"


def stop_forkserver() -> None:
    """Stop the forkserver now (it kills the commands still running and removes
    the requests' folders as it ends); the next request starts another."""
    global _context
    if _context is None:
        return
    from multiprocessing import forkserver

    stop = getattr(forkserver._forkserver, "_stop", None)  # CPython's own (3.8+); without it, it ends with this process
    if stop is not None:
        with contextlib.suppress(OSError):
            open(os.path.join(_root(), STOP_MARK), "w").close()
        stop()
        _context = None


def _root() -> str:
    root = os.environ[ROOT_VARIABLE]
    os.makedirs(root, mode=0o700, exist_ok=True)
    return root


def _child(directory: str, call: Call, max_cells: int | None) -> None:
    """In the forked process: stdout/stderr to files, the answer, its exit status."""
    die_with_parent()  # the forkserver: when it ends (the server stopped or was killed), so does the command
    _let_go_of_the_server()
    with contextlib.suppress(OSError):
        os.nice(COMMAND_NICENESS)  # the server's own loop (status, refusals, other tabs' answers) goes first
    for signum in (signal.SIGTERM, signal.SIGHUP):  # the forkserver's clean-up handlers are not the command's
        signal.signal(signum, signal.SIG_DFL)
    for fd, name in ((1, "stdout"), (2, "stderr")):
        target = os.open(os.path.join(directory, name), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(target, fd)
        os.close(target)
    sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
    sys.stderr = open(2, "w", encoding="utf-8", closefd=False)
    reserve_stdout()  # the stdout file holds the command's document, no native library's output
    os.chdir(directory)
    status = 2
    try:
        from .answers import answer

        status = answer(call, max_cells)  # --timeout counts from this fork (the process's start)
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(status)  # no multiprocessing clean-up: the parent reads the files


def _let_go_of_the_server() -> None:
    """Close the server's end of the forkserver's pipe, which multiprocessing
    hands every child: the forkserver learns that the server died when that
    end closes everywhere, and a command still holding it would keep it
    waiting (and itself running: it dies with the forkserver)."""
    from multiprocessing import forkserver

    fd = getattr(forkserver._forkserver, "_forkserver_alive_fd", None)
    if isinstance(fd, int):
        with contextlib.suppress(OSError):
            os.close(fd)
        forkserver._forkserver._forkserver_alive_fd = None


async def run_command(call: Call, files: dict[str, str], gone=None, max_cells: int | None = None,
                      max_output: int = 1 << 62) -> Outcome:
    """Answer ``call`` in a new process, in a temporary directory holding
    ``files`` (name -> text); return its outputs and the files it wrote.
    Killed after ``call.limit`` seconds (plus :data:`KILL_GRACE`) or as soon as
    ``await gone()`` is true (the client disconnected).  An output (stdout
    or a file) larger than ``max_output`` is not read: ``too_large`` names it."""
    ctx = start_forkserver()
    directory = tempfile.mkdtemp(prefix="request-", dir=_root())
    t0 = time.perf_counter()
    process = None
    try:
        for name, text in files.items():
            with open(os.path.join(directory, name), "w", encoding="utf-8") as f:
                f.write(text)
        process = ctx.Process(target=_child, args=(directory, call, max_cells), daemon=False)
        start = _Start(process, directory)
        try:
            await asyncio.to_thread(start.run)  # a round trip to the forkserver: not on the event loop
        except BaseException:
            if start.abandon():  # still starting: its thread stops the child and removes the folder
                directory = None
            raise
        running_pids.add(process.pid)
        try:
            # cancelled (the server stopping): the finally's _end kills and reaps the run
            stopped = await _wait(process, t0 + call.limit + KILL_GRACE, gone)
        finally:
            running_pids.discard(process.pid)
        outcome = Outcome(None if stopped else process.exitcode, seconds=time.perf_counter() - t0, stopped=stopped)
        if stopped is None:
            await asyncio.to_thread(_collect, outcome, directory, call.outputs, max_output)
        return outcome
    finally:
        if directory is not None:
            await asyncio.to_thread(_end, process, directory)


class _Start:
    """``process.start`` in a worker thread, which a cancelled request cannot
    stop: if the request gives up while it runs, the thread itself kills the
    child once it exists and only then removes the request's folder (removed
    earlier, the child could not open its stdout there and printed a traceback
    on the server's stderr)."""

    def __init__(self, process, directory: str):
        self.process, self.directory = process, directory
        self._lock = threading.Lock()
        self._returned = self._abandoned = False

    def run(self) -> None:
        try:
            with _SENTINELS:
                _without_main(self.process.start)
        finally:
            with self._lock:
                self._returned = True
                abandoned = self._abandoned
            if abandoned:
                _end(self.process, self.directory)

    def abandon(self) -> bool:
        """The request gives up; True when the start is still under way (its
        thread then ends the child and the folder), False when it had returned."""
        with self._lock:
            self._abandoned = True
            return not self._returned


def _end(process, directory: str) -> None:
    """The request is over: its command gone (killed if still running, reaped), then its folder."""
    if process is not None and process.pid is not None:
        with contextlib.suppress(OSError):
            process.kill()  # nothing when it has ended (its status read)
        _reap(process)
    shutil.rmtree(directory, ignore_errors=True)


def _reap(process) -> None:
    """Wait for ``process`` to end, then read its exit status (one thread at a time)."""
    multiprocessing.connection.wait([process.sentinel])
    with _SENTINELS:
        process.join()


def _collect(outcome: Outcome, directory: str, outputs: list[str], max_output: int) -> None:
    for name in ("stdout", *outputs):
        try:
            size = os.stat(os.path.join(directory, name)).st_size
        except OSError:
            continue
        if size > max_output:
            outcome.too_large[name] = size
    outcome.stdout = b"" if "stdout" in outcome.too_large else _read(directory, "stdout") or b""
    outcome.stderr = (_read(directory, "stderr", 1 << 16) or b"").decode("utf-8", "replace")
    outcome.files = {name: data for name in outputs
                     if name not in outcome.too_large and (data := _read(directory, name)) is not None}


async def _wait(process, kill_at: float, gone) -> str | None:
    """Wait for ``process`` to end; kill it at ``kill_at`` or when the client
    has gone.  Returns None when it ended by itself, else why it was killed."""
    loop = asyncio.get_running_loop()
    ended = asyncio.Event()
    loop.add_reader(process.sentinel, ended.set)
    try:
        while not ended.is_set():
            try:
                await asyncio.wait_for(ended.wait(), 0.05)
            except (asyncio.TimeoutError, TimeoutError):
                pass
            if ended.is_set():
                break
            why = "time limit" if time.perf_counter() >= kill_at else ("client gone" if gone and await gone() else None)
            if why:
                process.kill()  # SIGKILL; the command's own children die with it (PR_SET_PDEATHSIG)
                await asyncio.to_thread(_reap, process)
                return why
    finally:
        loop.remove_reader(process.sentinel)
    await asyncio.to_thread(_reap, process)
    return None


def _read(directory: str, name: str, most: int = -1) -> bytes | None:
    try:
        with open(os.path.join(directory, name), "rb") as f:
            return f.read(most)
    except OSError:
        return None
