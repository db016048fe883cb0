"""Helpers for tests that run tilesat as a real process and watch what it
costs: its peak memory (the kernel's own figure, from ``wait4``), its time,
and the processes and folders it leaves behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

#: A run is killed beyond this resident size, so that a reader that does not
#: stop (the code before issue 33) fails its test instead of taking the machine.
RSS_CAP = 1536 << 20


@dataclass
class Run:
    returncode: int
    stdout: bytes
    stderr: str
    peak_rss: int  # bytes, the largest the process was seen to be (its VmHWM, sampled)
    seconds: float
    capped: bool  # killed for passing RSS_CAP

    def error_line(self) -> str:
        """The one line on stderr, checked: no traceback, ``error: `` first, nothing else."""
        assert "Traceback" not in self.stderr, self.stderr
        lines = self.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), self.stderr
        return lines[0]


def tilesat_argv(*args) -> list[str]:
    return [sys.executable, "-m", "tilesat", *map(str, args)]


def run_tilesat(*args, stdin=subprocess.DEVNULL, timeout: float = 120, rss_cap: int = RSS_CAP, env=None,
                cwd=None) -> Run:
    """``tilesat ARGS`` as a process, with its peak resident size.

    The peak is the kernel's high-water mark of the process's own memory (VmHWM), read every 10 ms
    until it exits: wait4's ``ru_maxrss`` would not do, since it keeps the parent's figure across
    exec (a child of a 470 MiB pytest reads 470 MiB)."""
    t0 = time.monotonic()
    process = subprocess.Popen(tilesat_argv(*args), stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=env, cwd=cwd)
    capped = threading.Event()
    peak = [0]
    argv = tilesat_argv(*args)

    def watch():
        while process.returncode is None:
            resident, high_water = memory(process.pid, argv)
            peak[0] = max(peak[0], high_water)
            if resident > rss_cap:
                capped.set()
                os.kill(process.pid, signal.SIGKILL)
                return
            time.sleep(0.01)

    threading.Thread(target=watch, daemon=True).start()
    out, err = [], []
    readers = [threading.Thread(target=lambda: out.append(process.stdout.read()), daemon=True),
               threading.Thread(target=lambda: err.append(process.stderr.read()), daemon=True)]
    for r in readers:
        r.start()
    deadline = t0 + timeout
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            os.kill(process.pid, signal.SIGKILL)
            pid, status, usage = os.wait4(process.pid, 0)
            break
        time.sleep(0.02)
    process.returncode = os.waitstatus_to_exitcode(status)
    for r in readers:
        r.join(10)
    return Run(process.returncode, out[0] if out else b"", (err[0] if err else b"").decode("utf-8", "replace"),
               peak[0], time.monotonic() - t0, capped.is_set())


def memory(pid: int, argv: list[str]) -> tuple[int, int]:
    """(VmRSS, VmHWM) in bytes of ``pid`` once it runs ``argv`` ((0, 0) before its exec and once it is gone)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            if f.read().split(b"\0")[:len(argv)] != [os.fsencode(a) for a in argv]:
                return 0, 0
    except OSError:
        return 0, 0
    return _status(pid, "VmRSS", "VmHWM")


def rss(pid: int) -> int:
    """Resident bytes of ``pid`` now (0 once it is gone)."""
    return _status(pid, "VmRSS")[0]


def _status(pid: int, *names: str) -> tuple[int, ...]:
    """The sizes ``names`` (VmRSS, VmHWM, ...) of /proc/PID/status in bytes (zeros once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            fields = dict(line.split(":", 1) for line in f if line.startswith(tuple(f"{n}:" for n in names)))
        return tuple(int(fields[n].split()[0]) * 1024 for n in names)
    except (OSError, ValueError, KeyError):
        return (0,) * len(names)


def cpu_seconds(pid: int) -> float:
    """CPU seconds ``pid`` has used so far, user and system (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def alive(pid: int) -> bool:
    """Running (not a zombie, not gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return False


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(name))
            except (OSError, ValueError, IndexError):
                pass
    return found


def descendants(pid: int) -> list[int]:
    """Every process below ``pid``, children first."""
    found, todo = [], [pid]
    while todo:
        for child in children(todo.pop()):
            found.append(child)
            todo.append(child)
    return found


def with_environ(name: str, value: str) -> list[int]:
    """Live processes whose environment holds ``name=value``: how a test finds
    what a killed tilesat left behind (its orphans have parent 1 by then)."""
    marker = f"{name}={value}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    if marker in f.read().split(b"\0") and alive(int(entry)):
                        found.append(int(entry))
            except OSError:
                pass
    return found
