"""Run ``tilesat`` as a user does, and read what the user would read.

The console script of this environment runs in a process of its own, in a
session of its own, with stdin empty and stdout a pipe read as bytes: what a
shell script or ``| python -m json.tool`` gets.  The contract (README,
"Commands"; the developers' guide):

* stdout carries tilesat's document only: with ``--json`` exactly one JSON
  document, nothing before or after it; in text the first line is the verdict;
* stderr carries tilesat's own lines only: no traceback, no library's banner,
  log line or warning, no colour codes when it is not a terminal;
* bad input is one ``error: ...`` line on stderr and exit status 2;
* nothing the command started outlives it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from procs import cpu_seconds

INSTANCES = Path(__file__).resolve().parents[2] / "instances"

#: What a user reads that is not tilesat's: each pattern names where it came from.
FOREIGN_OUTPUT = {
    "a Python traceback": re.compile(r"Traceback \(most recent call last\)|^\w+(\.\w+)*(Error|Exception): ", re.M),
    "an exception Python could not report": re.compile(r"^Exception ignored in", re.M),
    "a crash of the interpreter": re.compile(r"Fatal Python error|Segmentation fault|core dumped"),
    "a Python warning": re.compile(r"\b\w*Warning: |warnings\.warn\("),
    "HiGHS's banner or log": re.compile(r"Running HiGHS|HiGHS \d|THIRD_PARTY_NOTICES|Copyright \(c\)|^Solving LP|Model status", re.M),
    "a SAT/#SAT tool's comment lines (ganak, ApproxMC, CaDiCaL)": re.compile(r"^c( |$)|^s (SATISFIABLE|UNSATISFIABLE|mc)", re.M),
    "Dask's or Tornado's logging": re.compile(r"distributed\.\w+|tornado\.\w+|^(INFO|WARNING|ERROR|DEBUG)\b|- (INFO|WARNING|ERROR) -", re.M),
    "numba's output": re.compile(r"\bNumba\w*|\bnumba\.core\b"),
    "multiprocessing's complaint": re.compile(r"resource_tracker|leaked semaphore|There appear to be \d+ leaked"),
    "uvicorn's log": re.compile(r"Uvicorn running|Started server process|Waiting for application|Application startup"),
    "a progress bar or spinner": re.compile(r"[\r\u2800-\u28ff\u2501\u2578\u257a]"),
    "a colour or cursor code": re.compile(r"\x1b\["),
}


def tilesat_command() -> list[str]:
    """The ``tilesat`` console script installed beside this Python (what
    ``pip install -e .`` made), else ``python -m tilesat``."""
    script = Path(sys.executable).with_name("tilesat")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "tilesat"]


def user_environment(extra: dict | None) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TILESAT_")}
    for name in ("FORCE_COLOR", "CLICOLOR_FORCE", "PYTHONWARNINGS", "PYTHONDEVMODE"):
        env.pop(name, None)  # a user's shell has none of these: what tilesat prints on its own is tested
    env.update(extra or {})
    return env


@dataclass
class Run:
    args: list[str]
    status: int
    out: bytes
    err_bytes: bytes
    seconds: float

    @property
    def text(self) -> str:
        return self.out.decode("utf-8")  # strict: stdout is UTF-8 text

    @property
    def err(self) -> str:
        return self.err_bytes.decode("utf-8")

    @property
    def first_line(self) -> str:
        return self.text.split("\n", 1)[0]

    def describe(self) -> str:
        return (f"tilesat {' '.join(self.args)}: exit {self.status}\n--- stdout ({len(self.out)} bytes):\n"
                f"{self.out[:3000]!r}\n--- stderr:\n{self.err_bytes.decode('utf-8', 'replace')[-3000:]}")


def _session_members(sid: int) -> list[int]:
    """Processes of the session ``sid`` (the run's own: it is the session leader)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":  # fields: state, ppid, pgrp, session
            found.append(int(entry))
    return found


def _assert_nothing_left(run: Run, sid: int, wait: float = 5.0) -> None:
    """Whatever the command started (forked children, solvers, Dask workers) is gone
    soon after it ends; the survivors are killed so that no test leaks them."""
    give_up = time.monotonic() + wait
    while (left := _session_members(sid)) and time.monotonic() < give_up:
        time.sleep(0.05)
    if left:
        cmdlines = []
        for pid in left:
            try:
                cmdlines.append(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:200])
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        pytest.fail(f"processes left behind {wait:g} s after the command ended: {cmdlines}\n{run.describe()}")


def start(*args, env: dict | None = None, cwd: Path | None = None) -> subprocess.Popen:
    """tilesat ARGS, started as from a shell: a session of its own, stdin empty."""
    return subprocess.Popen(tilesat_command() + [str(a) for a in args], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=user_environment(env), cwd=cwd,
                            start_new_session=True)


def finish(proc: subprocess.Popen, args, started: float, timeout: float = 120) -> Run:
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"tilesat {' '.join(map(str, args))} still running after {timeout} s:\n{err.decode(errors='replace')[-3000:]}")
    run = Run([str(a) for a in args], proc.returncode, out, err, time.perf_counter() - started)
    _assert_nothing_left(run, proc.pid)
    check_streams(run)
    return run


def tilesat(*args, env: dict | None = None, cwd: Path | None = None, timeout: float = 120) -> Run:
    """Run tilesat ARGS to its end; its streams are checked for foreign output."""
    started = time.perf_counter()
    return finish(start(*args, env=env, cwd=cwd), args, started, timeout)


def interrupted(*args, busy_cpu: float = 1.5, extra: float = 0.3, env: dict | None = None) -> Run:
    """Ctrl-C: SIGINT to tilesat once it is at work (a child of its own started,
    or ``busy_cpu`` s of CPU used: past start-up on any machine), ``extra`` s later."""
    started = time.perf_counter()
    proc = start(*args, env=env)
    give_up = time.monotonic() + 60
    while len(_session_members(proc.pid)) < 2 and cpu_seconds(proc.pid) < busy_cpu:
        if proc.poll() is not None or time.monotonic() > give_up:
            run = finish(proc, args, started)
            pytest.fail(f"it ended (or never got to work) before it could be interrupted\n{run.describe()}")
        time.sleep(0.01)
    time.sleep(extra)
    proc.send_signal(signal.SIGINT)
    return finish(proc, args, started)


# --- the contract ------------------------------------------------------------

def check_streams(run: Run) -> None:
    """Both streams are UTF-8 text of tilesat's own: nothing a library, the
    interpreter or a terminal-only display wrote."""
    try:
        out, err = run.text, run.err
    except UnicodeDecodeError as e:
        pytest.fail(f"not UTF-8 ({e})\n{run.describe()}")
    for stream, text in (("stderr", err), ("stdout", out)):
        for what, pattern in FOREIGN_OUTPUT.items():
            if stream == "stdout" and what == "a progress bar or spinner":
                continue  # stdout's pictures are checked by their commands (box-drawing tables are tilesat's own)
            if m := pattern.search(text):
                pytest.fail(f"{stream} shows {what}: {text[max(0, m.start() - 80):m.end() + 80]!r}\n{run.describe()}")


def expect(run: Run, status: int) -> Run:
    assert run.status == status, f"expected exit {status}\n{run.describe()}"
    return run


def document(run: Run, keys=(), status: int | None = None) -> dict:
    """stdout is exactly one JSON object (the whole of it parsed, nothing
    before or after but its newline) with at least the documented ``keys``."""
    if status is not None:
        expect(run, status)
    text = run.text
    assert text.startswith("{") and text.endswith("}\n"), f"not one JSON object alone on stdout\n{run.describe()}"
    try:
        data = json.loads(text)
    except ValueError as e:
        pytest.fail(f"stdout is not one JSON document ({e})\n{run.describe()}")
    missing = [k for k in keys if k not in data]
    assert not missing, f"JSON without the documented keys {missing}\n{run.describe()}"
    return data


def verdict(run: Run, pattern: str, status: int | None = None) -> list[str]:
    """The first line of stdout is the verdict the README shows (a regular
    expression matched at its start); returns the lines."""
    if status is not None:
        expect(run, status)
    assert re.match(pattern, run.first_line), f"first line is not /{pattern}/\n{run.describe()}"
    return run.text.splitlines()


def usage_error(run: Run, mentions: str | None = None) -> str:
    """Bad input: nothing on stdout, one line ``error: ...`` on stderr, exit 2."""
    expect(run, 2)
    assert run.out == b"", f"stdout not empty on bad input\n{run.describe()}"
    lines = run.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), f"not one 'error:' line\n{run.describe()}"
    if mentions is not None:
        assert mentions in lines[0], f"the error does not say {mentions!r}\n{run.describe()}"
    return lines[0]


class Prefetch:
    """Independent short runs started ahead, two at a time: each is mostly a
    process's start-up, and run one by one they leave a second core idle."""

    def __init__(self, workers: int = 2):
        self._pool = ThreadPoolExecutor(max_workers=workers)
        self._runs: dict = {}

    def submit(self, key, fn, *args) -> None:
        self._runs[key] = self._pool.submit(fn, *args)

    def result(self, key):
        """The run's result; its failure (a contract check) raised here, in its own test."""
        return self._runs[key].result()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._pool.shutdown(wait=True, cancel_futures=True)


def selected_cases(request) -> list:
    """The ``case`` parameters of the tests of ``request``'s module that this session runs."""
    return [item.callspec.params["case"] for item in request.session.items
            if item.module is request.module and "case" in getattr(getattr(item, "callspec", None), "params", {})]


def has(program: str) -> str | None:
    return shutil.which(program)
