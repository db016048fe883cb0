"""What every command shares: exit statuses, option types, error handling,
consoles, the progress display, loading an instance, output checks."""

from __future__ import annotations

import contextlib
import errno
import functools
import gc
import signal
import threading
import time
import os
import re
import select
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from ..running import processes
from ..running.control import Deadline, check_timeout, process_start, time_limit
from ..sat.encodings import ENCODINGS
from ..errors import TilesatError, did_you_mean, one_of  # noqa: F401 (one_of: the commands' help texts)
from ..sat.formula import CARD_ENCODINGS
from ..model.instance import Instance, load_instance
from ..engines.auto import method_help
from ..engines.registry import method_names

if TYPE_CHECKING:
    from rich.console import Console

EXIT_UNIQUE, EXIT_MULTIPLE, EXIT_USAGE, EXIT_NONE, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a process killed by it
EXIT_TIMEOUT = 124  # as timeout(1): --timeout passed before a verdict
STARTED = process_start()  # --timeout counts from here: the user times the whole command


def run_limit(timeout: float | None):
    """The command's time limit, counted from its start (imports included)."""
    return time_limit(Deadline(check_timeout(timeout), start=STARTED))



FileArg = Annotated[Path, typer.Argument(help="Instance file (header lines, then a grid of '.' and '#').", show_default=False)]
PiecesOpt = Annotated[Optional[str], typer.Option("--pieces", help="Override the file's 'pieces:' header, e.g. 'L4' or 'pentominoes:1'.")]
WrapOpt = Annotated[Optional[str], typer.Option("--wrap", help="Override 'wrap:': none, rows, columns or both.")]
def completes(names):
    """A shell-completion callback (typer's ``autocompletion``) offering the names that
    start with what was typed; ``names`` is called only when the shell asks."""
    return lambda incomplete: [n for n in names() if n.startswith(incomplete)]


def _solver_names():
    from ..sat.solvers import solver_names

    return solver_names()


def _drawings():
    from ..showing.printing import DRAWINGS

    return DRAWINGS


EncodingOpt = Annotated[str, typer.Option("--encoding", "-e", autocompletion=completes(lambda: ["auto", *ENCODINGS]), help=f"Exactly-one encoding: auto (pairwise on tight boards, ladder on open ones, else commander), {', '.join(ENCODINGS)}.")]
SolverOpt = Annotated[str, typer.Option("--solver", "-s", autocompletion=completes(_solver_names), help="PySAT solver name (cadical195, glucose4, kissat404, ...).")]
MethodOpt = Annotated[str, typer.Option("--method", autocompletion=completes(lambda: method_names("find")), help=method_help("find"))]
CardOpt = Annotated[str, typer.Option("--card", autocompletion=completes(lambda: CARD_ENCODINGS), help=f"Cardinality encoding for piece counts: {', '.join(CARD_ENCODINGS)}.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of pictures.")]
TimeoutOpt = Annotated[Optional[float], typer.Option("--timeout", help="Seconds the whole run may take, whatever the method or solver; then the verdict is 'unknown' (exit 124) with what was found.")]
SvgOpt = Annotated[Optional[Path], typer.Option("--svg", help="Also draw the tiling(s) as SVG here.")]
PngOpt = Annotated[Optional[Path], typer.Option("--png", help="Also draw the tiling(s) as PNG here.")]
TilingOutOpt = Annotated[Optional[Path], typer.Option("--out", "-o", help="Also write the tiling(s) here, for other tools: .csv (a row per cell: tiling, tile, piece, row, column), .tsv (a grid of tile numbers a spreadsheet shows as the board), .txt (the letters of the piped output), else JSON (a tiling per line).")]
PdfOpt = Annotated[Optional[Path], typer.Option("--pdf", help="Also print the puzzle as a PDF: an A4 page with the board unsolved and the pieces to place, and a page with the solution (--draw chooses).")]
DrawOpt = Annotated[Optional[str], typer.Option("--draw", metavar="WHAT", autocompletion=completes(lambda: _drawings()), help="What the pictures show: puzzle (the board unsolved, for printing), solution, or both (the puzzle first). Default: both pages in --pdf; in --svg/--png the solution (generate: the puzzle).")]
CellSizeOpt = Annotated[Optional[int], typer.Option("--cell-size", metavar="PX", min=2, max=400, help="Pixels a cell in --svg/--png (default 24; PNGs of big boards use less).")]
ForceOpt = Annotated[bool, typer.Option("--force", help="Overwrite existing output files.")]
JobsOpt = Annotated[str, typer.Option("--jobs", "-j", help="Race N diverse SAT configurations (encodings, CaDiCaL options, seeds, phases), each in its own process: the first verified answer wins; auto: one per core. 1: a single run.")]
ProofOpt = Annotated[Optional[Path], typer.Option("--proof", help="Write the CNF and its DRAT proof here when the verdict rests on unsatisfiability.")]


@functools.cache
def _console_class():
    from rich.console import Console  # (here: a count piped to a file prints without rich)

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            # rich's default exits with status 1 (check-unique's "multiple"):
            # hand the closed pipe to ``friendly`` instead, which ends quietly with 141
            self.quiet = True
            raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))

    return _Console


def _out(width: int | None = None) -> Console:
    return _console_class()(highlight=False, soft_wrap=True, width=width)


def _err() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


#: What rich's console turns into an emoji (``:name:``), and the variables that make it call any stream a terminal.
_EMOJI_CODE = re.compile(r":\S*?:")
_TERMINAL_VARIABLES = ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "FORCE_TERMINAL", "JUPYTER_COLUMNS",
                       "JUPYTER_LINES")


def plain_stream(stream) -> bool:
    """Whether rich's console would call ``stream`` no terminal, seen without importing rich (a small
    count's line needs none of it): not a terminal, not under IPython (rich draws in a notebook), and none
    of the variables that change rich's mind is set."""
    if "IPython" in sys.modules or any(name in os.environ for name in _TERMINAL_VARIABLES):
        return False
    try:
        return not stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or closed: rich's own detection answers
        return False


def print_line(line: str) -> None:
    """``_out().print(line, markup=False)``: where rich would write the line as it is (a pipe or a file;
    printable ASCII only, nothing it reads as an emoji code), written here without importing rich."""
    if line.isascii() and line.isprintable() and not _EMOJI_CODE.search(line) and plain_stream(sys.stdout):
        sys.stdout.write(line + "\n")
    else:
        _out().print(line, markup=False)


def stderr_is_terminal() -> bool:
    """``_err().is_terminal`` (a progress display goes there), without rich where the answer is no."""
    return not plain_stream(sys.stderr) and _err().is_terminal


def in_colour(console: Console) -> bool:
    """Whether ``console`` shows colours: a terminal that rich's own detection
    leaves colour on for (not under ``NO_COLOR``, nor on ``TERM=dumb``).
    Without colour a tiling is drawn as piped output is, a letter per tile."""
    return console.is_terminal and console.color_system is not None and not console.no_color


def stdout_fails() -> bool:
    """Is standard output the stream that failed?  A pipe whose reader has
    gone shows an error condition on poll; a full disk fails again when
    flushed (the data is still buffered)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (tests' runner)
        return False
    if hasattr(select, "poll"):
        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        if any(events & select.POLLERR for _, events in poller.poll(0)):
            return True
    try:
        sys.stdout.flush()
    except OSError:
        return True
    return False


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the data still buffered does not fail
    again (with a second message) when Python flushes it at exit."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (tests' runner): nothing to flush at exit
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def stdout_failed(error: OSError) -> int:
    """Standard output failed: a closed pipe (``| head``) ends quietly with
    the conventional SIGPIPE status, anything else (a full disk) is one line.
    Returns the exit status."""
    _silence_stdout()
    if error.errno == errno.EPIPE:
        return EXIT_BROKEN_PIPE
    _err().print(f"error: cannot write the output: {error.strerror or error}", markup=False)
    return EXIT_USAGE


_STARTED_COMMAND = []  # a command body began: from then on Ctrl-C is its to report


def interrupt_reported() -> bool:
    """Whether a command started (and so says what it had when interrupted)."""
    return bool(_STARTED_COMMAND)


_RUNS = {"pid": os.getpid(), "count": 0}  # runs begun in this process (a fork starts again at 0)


def begin_run() -> None:
    """A new run of the command line (in-process callers run several): no command started yet, Ctrl-C as Python has it,
    and ``STARTED`` (what --timeout counts from) this run's start.

    The first run of a process counts from the process's start (the user times the
    whole command, imports included); a forked process's from the fork (the studio's
    workers); every later run in one process from now.  Never earlier than a
    ``STARTED`` a caller set just before."""
    global STARTED
    if _RUNS["pid"] != os.getpid():
        _RUNS.update(pid=os.getpid(), count=0)
    start = process_start() if _RUNS["count"] == 0 else time.perf_counter()
    _RUNS["count"] += 1
    STARTED = max(STARTED, start)
    _STARTED_COMMAND.clear()
    processes.forget_interrupts()
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _ignore_more_interrupts() -> None:
    """After the first Ctrl-C (or SIGTERM, SIGHUP), further ones must not cut the report short."""
    processes.ignore_interrupts()


def interrupted_exit() -> typer.Exit:
    """Exit 130 (Ctrl-C), 143 (SIGTERM) or 129 (SIGHUP) for a command that has said what it had when interrupted."""
    _ignore_more_interrupts()
    return typer.Exit(processes.interrupted_status())


def answered() -> None:
    """The command has its answer and is about to print it: a Ctrl-C from here is only noted, so
    that the answer comes out whole and the command ends with its status (not 130 and an
    "interrupted: ... no verdict" line that the answer above it contradicts)."""
    processes.work_done()


def is_interrupted(status) -> bool:
    """Whether ``status`` is an interrupted run's: 128 + SIGINT, SIGTERM or SIGHUP."""
    return status in {128 + s for s in processes.INTERRUPTING}


def _run_command(fn, args, kwargs):
    """``fn(*args, **kwargs)``, where a Ctrl-C that came out as another error, or that
    CPython dropped after the run's last poll, comes out as KeyboardInterrupt."""
    try:
        result = fn(*args, **kwargs)
    except (typer.Exit, typer.Abort):
        processes.work_done()  # its status decided: a Ctrl-C from here changes nothing
        raise
    except Exception as e:
        if processes.interrupt_behind(e):
            raise KeyboardInterrupt from None
        raise
    processes.raise_lost_interrupt(unreported=False)  # one it reported and returned from is not raised again
    processes.work_done()
    return result


def _collect_from_here() -> None:
    """The console script (:mod:`tilesat.main`) starts with the garbage collector off: the command runs
    with it on, the start-up's objects set aside (frozen: later passes skip them)."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


def friendly(fn):
    """Bad input -> one line on stderr and exit 2; Ctrl-C -> exit 130 (SIGTERM 143,
    SIGHUP 129: handled alike); a failing stdout -> ``stdout_failed``."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        restore = processes.handle_interrupts()  # from here Ctrl-C, SIGTERM and SIGHUP say what the command had
        _collect_from_here()
        _STARTED_COMMAND.append(True)
        try:
            return _run_command(fn, args, kwargs)
        except TilesatError as e:
            _err().print(f"error: {e}", markup=False)
            raise typer.Exit(EXIT_USAGE) from None
        except MemoryError:
            _err().print("error: out of memory: the instance is too large for this machine", markup=False)
            raise typer.Exit(EXIT_USAGE) from None
        except KeyboardInterrupt as e:
            _ignore_more_interrupts()
            found = len(getattr(e, "tilings", []))
            had = f"found {found} tiling{'s' if found != 1 else ''} before stopping" if found else "no tiling found yet"
            _err().print(f"interrupted: {had}; no verdict", markup=False)
            raise typer.Exit(processes.interrupted_status()) from None
        except OSError as e:
            if not stdout_fails():  # another file or pipe (a solver's): not ours to explain
                raise
            raise typer.Exit(stdout_failed(e)) from None
        finally:
            restore()

    return wrapper


def _load(file: Path, pieces: str | None, wrap: str | None) -> Instance:
    return load_instance(file, pieces=pieces, wrap=wrap)


class Unshown:
    """A progress display that shows nothing (stderr is no terminal, or the output
    is JSON): rich's Progress with ``disable=True``, without importing rich.progress."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

    def add_task(self, description, **fields):
        return 0

    def update(self, task, **fields):
        pass


@contextlib.contextmanager
def _progress():
    """On stderr, when it is a terminal: the current stage, its elapsed time,
    and a bar where the stage is measured (clauses loaded into the solver)."""
    err = _err()
    if not err.is_terminal:
        yield None
        return
    from rich.progress import BarColumn, Progress, SpinnerColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn

    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err, transient=True) as bar:
        stage = {"key": None, "task": bar.add_task("starting", total=None)}

        def update(message, done=None, total=None):
            key = message.split(" · ")[0]  # "solving for tiling 1 · 120,000 conflicts": same stage, new figures
            if key != stage["key"]:  # a new stage: a new task, its clock from zero
                bar.remove_task(stage["task"])
                stage["key"], stage["task"] = key, bar.add_task(message, total=total, completed=done or 0)
            else:
                bar.update(stage["task"], description=message, completed=done or 0)

        yield update



# Outputs whose format is chosen by the file ending: the endings each accepts.
KNOWN_ENDINGS = {"--svg": (".svg",), "--png": (".png",), "--pdf": (".pdf",), "--plot": (".png", ".svg", ".pdf")}


def check_draw(draw: str | None) -> str | None:
    """--draw's value, checked before any work."""
    if draw is not None and draw not in _drawings():
        raise TilesatError(f"--draw {draw!r}{did_you_mean(draw, _drawings())}: use {one_of(_drawings())}")
    return draw


def check_outputs(outputs: dict[str, Optional[Path]], force: bool) -> None:
    """Before any work, so that a run never ends in an unwritable path:
    ``outputs`` maps each option (``"--svg"``) to its path or None.
    Checks the ending where the option fixes the format, that the path is
    not a directory, that its directory exists and is writable, and that
    nothing is overwritten without --force."""
    seen: dict[str, str] = {}
    for option, path in outputs.items():
        if path is None:
            continue
        endings = KNOWN_ENDINGS.get(option)
        if endings and not str(path).lower().endswith(endings):
            raise TilesatError(f"{option} {path}: the file name must end in {one_of(endings)}")
        try:
            _check_output(option, path, force)
        except (OSError, ValueError) as e:  # a name too long, a NUL byte, ...
            raise TilesatError(f"{option} {path}: cannot write there ({getattr(e, 'strerror', None) or e})") from None
        key = os.path.realpath(path)
        if key in seen:
            raise TilesatError(f"{option} {path}: {seen[key]} writes the same file")
        seen[key] = option


def _check_output(option: str, path: Path, force: bool) -> None:
    if path.is_dir():
        raise TilesatError(f"{option} {path}: is a directory; give a file name")
    if os.path.lexists(path):
        if not force:
            raise TilesatError(f"{path} exists; pass --force to overwrite it")
        if not os.access(path, os.W_OK):
            raise TilesatError(f"{option} {path}: cannot write it (permission denied)")
        return
    parent = path.parent
    if not parent.is_dir():
        raise TilesatError(f"{option} {path}: no such directory: {parent}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise TilesatError(f"{option} {path}: cannot write in {parent} (permission denied)")
    try:
        os.stat(path)  # raises what creating it would: a name too long, ...
    except FileNotFoundError:
        pass  # as it should be: a new file


@contextlib.contextmanager
def writing(path: Path):
    """A failure while writing ``path`` (disk full, ...) -> one line, exit 2."""
    try:
        yield
    except OSError as e:
        raise TilesatError(f"cannot write {path}: {e.strerror or e}") from None
