"""Standard output carries tilesat's own document and nothing else.

Native libraries write to file descriptor 1 from C, where ``sys.stdout``
cannot catch them: HiGHS 1.16 prints a banner when a model is made, ganak
prints ``c o`` lines, numba and Dask may print while they work.  One more
such line before a ``--json`` document and every script reading it breaks.
Two tools, one rule:

* :func:`reserve_stdout` is for a process that *is* tilesat (the command
  line, the studio's command workers).  tilesat's ``sys.stdout`` moves to a
  private duplicate of fd 1, and fd 1 itself points at /dev/null for the
  rest of the process.  Nothing native, in any thread, forked child or
  subprocess that inherits fd 1, reaches the user's stdout, and nothing has
  to be restored, so no thread can race a restore.
* :func:`native_output` wraps each call into a native library.  In a process
  that reserved stdout it does nothing; in a program that uses tilesat as a
  library it points fd 1 at /dev/null for the call and restores it after
  (nested and concurrent calls share one redirection).

``TILESAT_NATIVE_OUTPUT=stderr`` sends the native output to stderr instead
of /dev/null, to see what a library said.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import threading

ENV_VAR = "TILESAT_NATIVE_OUTPUT"

_state = {"reserved": False, "depth": 0, "saved": None}
_lock = threading.Lock()


def _sink() -> int:
    """A new fd where native output goes: /dev/null, or stderr when asked."""
    if os.environ.get(ENV_VAR, "").lower() == "stderr":
        return os.dup(2)
    return os.open(os.devnull, os.O_WRONLY)


def reserve_stdout() -> None:
    """Keep fd 1's file for ``sys.stdout`` alone, and point fd 1 at the sink.

    Call early, in a process whose stdout is tilesat's document; again in a
    forked child that pointed fd 1 and ``sys.stdout`` somewhere new.  A
    ``sys.stdout`` that is not fd 1 (already reserved, a test's runner) is
    left alone."""
    try:
        sys.stdout.flush()
        if sys.stdout.fileno() != 1:
            return
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return
    private = os.dup(1)  # not inherited by subprocesses (PEP 446)
    old = sys.stdout
    # buffered as the stream it replaces was (PYTHONUNBUFFERED, -u: no buffer, each write goes out at once)
    unbuffered = not isinstance(getattr(old, "buffer", None), io.BufferedWriter)
    raw = io.FileIO(private, "w")
    sys.stdout = io.TextIOWrapper(
        raw if unbuffered else io.BufferedWriter(raw),
        encoding=getattr(old, "encoding", None) or "utf-8", errors=getattr(old, "errors", None) or "strict",
        line_buffering=bool(getattr(old, "line_buffering", False)) or os.isatty(private), write_through=unbuffered,
    )
    sink = _sink()
    os.dup2(sink, 1)
    os.close(sink)
    _state["reserved"] = True


def stdout_reserved() -> bool:
    return _state["reserved"]


@contextlib.contextmanager
def native_output():
    """Whatever native code writes to fd 1 inside the block goes to the sink,
    not to the program's stdout."""
    if _state["reserved"]:
        yield
        return
    with _lock:
        if _state["depth"] == 0:
            try:
                sys.stdout.flush()
            except (AttributeError, OSError, ValueError):
                pass
            saved = os.dup(1)
            sink = _sink()
            os.dup2(sink, 1)
            os.close(sink)
            _state["saved"] = saved
        _state["depth"] += 1
    try:
        yield
    finally:
        with _lock:
            _state["depth"] -= 1
            if _state["depth"] == 0:
                saved = _state["saved"]
                _state["saved"] = None
                os.dup2(saved, 1)
                os.close(saved)


def _after_fork_in_child() -> None:
    # a fork while another thread held the lock would leave it held for ever in the child
    global _lock
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
