"""Every child dies with tilesat (issue 33): SIGTERM, SIGHUP and SIGKILL to a
real tilesat process in the middle of a run with ``--jobs 2`` (forked
workers), the portfolio, an ``ext:`` solver (a shell script with a child of
its own), ``--cluster dask``: two seconds later no process it started is
alive and no temporary folder is left.  SIGTERM and SIGHUP are handled like
Ctrl-C: what was found is printed, exit 143 and 129.  ``--jobs`` is capped.

Every process tilesat starts inherits a mark in its environment: that is how
the test finds them once they have been orphaned (parent 1).  TMPDIR points
at a folder of the test's: anything tilesat leaves there is a leak.
(The studio's own lifecycle: tests/test_studio_security.py.)
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from procs import alive, descendants, run_tilesat, tilesat_argv, with_environ

ROOT = Path(__file__).resolve().parent.parent
INSTANCES = ROOT / "instances"
LONG_COUNT = INSTANCES / "long-counts" / "pentominoes-dominoes-8x8.txt"  # minutes serially
HARD = INSTANCES / "hard-60x60" / "hard-L4-60x60-s1.txt"  # tens of seconds for --jobs 2 --method sat
MARK = "TILESAT_TEST_LIFECYCLE"
EXIT = {signal.SIGTERM: 143, signal.SIGHUP: 129, signal.SIGINT: 130}


class Run:
    """tilesat as a process with its own TMPDIR and a mark in its environment."""

    def __init__(self, tmp: Path, *args, wrapper=()):
        self.tmp, self.mark = tmp / "tmp", uuid.uuid4().hex
        self.tmp.mkdir(exist_ok=True)
        env = {**os.environ, "TMPDIR": str(self.tmp), MARK: self.mark}
        self.process = subprocess.Popen([*wrapper, *tilesat_argv(*args)], env=env, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)

    def wait_for_children(self, n: int, seconds: float = 120) -> None:
        """Until ``n`` processes below tilesat are running (its workers are at work)."""
        deadline = time.monotonic() + seconds
        while len([p for p in descendants(self.process.pid) if alive(p)]) < n:
            if self.process.poll() is not None:
                pytest.fail(f"tilesat ended before its children started: {self.process.stderr.read()}")
            assert time.monotonic() < deadline, "tilesat's children never started"
            time.sleep(0.05)
        time.sleep(0.5)  # at work, not starting

    def signal(self, signum) -> tuple[int, float, str, str]:
        """Send ``signum``; (exit status, seconds until it ended, stdout, stderr)."""
        sent = time.monotonic()
        self.process.send_signal(signum)
        try:
            out, err = self.process.communicate(timeout=30)
        except subprocess.TimeoutExpired:  # tilesat, or orphans holding its stdout (the code before issue 33)
            alive_then = self.process.poll() is None
            self.process.kill()
            self.clean_up()
            out, err = self.process.communicate()
            pytest.fail(f"{'tilesat' if alive_then else 'processes it started'} still running 30 s after signal {signum}")
        return self.process.returncode, time.monotonic() - sent, out, err

    def left_behind(self, seconds: float = 2.0) -> tuple[list[int], list[str]]:
        """Two seconds after tilesat ended: its processes still alive, and what is in its TMPDIR."""
        time.sleep(seconds)
        return with_environ(MARK, self.mark), sorted(os.listdir(self.tmp))

    def clean_up(self) -> None:
        for pid in with_environ(MARK, self.mark):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _stopped_like_ctrl_c(run: Run, signum) -> str:
    code, took, out, err = run.signal(signum)
    assert "Traceback" not in err, err
    assert code == EXIT[signum], (code, err)
    assert took < 3, took  # stop within a second (plus a loaded machine's slack)
    return out + err


def _nothing_left(run: Run) -> None:
    processes, files = run.left_behind()
    run.clean_up()
    assert processes == [], "processes left behind"
    assert files == [], "temporary files left behind"


# -- forked count workers (--jobs 2) -------------------------------------------------------

@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_count_jobs_2_stops_on_sigterm_like_ctrl_c(tmp_path, signum):
    # issue 33: the two workers kept running at 100 % CPU with parent 1, once 10 minutes later
    run = Run(tmp_path, "count", LONG_COUNT, "--jobs", "2")
    run.wait_for_children(2)
    said = _stopped_like_ctrl_c(run, signum)
    assert "at least" in said and "interrupted" in said  # what it had found
    _nothing_left(run)


def test_count_jobs_2_leaves_nothing_on_sigkill(tmp_path):
    run = Run(tmp_path, "count", LONG_COUNT, "--jobs", "2")
    run.wait_for_children(2)
    run.signal(signal.SIGKILL)
    _nothing_left(run)


def test_sigterm_on_a_json_count_prints_the_partial_count(tmp_path):
    run = Run(tmp_path, "count", INSTANCES / "pentomino-6x10.txt", "--method", "dlx", "--json")
    run.wait_for_children(1)
    code, took, out, err = run.signal(signal.SIGTERM)
    assert code == 143 and "Traceback" not in err, err
    data = json.loads(out)
    assert data["stopped"] == "interrupted" and not data["exact"] and data["count"] >= 0
    _nothing_left(run)


# -- the portfolio --------------------------------------------------------------------------

@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
def test_the_portfolio_leaves_nothing(tmp_path, signum):
    run = Run(tmp_path, "check-unique", HARD, "--jobs", "2", "--method", "sat")
    run.wait_for_children(2)
    if signum == signal.SIGKILL:
        run.signal(signum)
    else:
        _stopped_like_ctrl_c(run, signum)
    _nothing_left(run)


# -- the model counters: compiled code in a forked child ------------------------------------

@pytest.mark.parametrize("method, signum", [("ganak", signal.SIGTERM), ("approx", signal.SIGKILL)])
def test_a_model_counter_goes_with_tilesat(tmp_path, method, signum):
    run = Run(tmp_path, "count", LONG_COUNT, "--method", method)
    run.wait_for_children(1)
    if signum == signal.SIGKILL:
        run.signal(signum)
    else:
        assert "at least" in _stopped_like_ctrl_c(run, signum)
    _nothing_left(run)


# -- an ext: solver: a shell script that starts a child of its own ---------------------------

@pytest.fixture
def slow_solver(tmp_path) -> Path:
    script = tmp_path / "slow.sh"
    script.write_text("#!/bin/sh\nsleep 300 &\nsleep 300\n")
    script.chmod(0o755)
    return script


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL])
def test_an_ext_solver_and_its_folder_go_with_tilesat(tmp_path, slow_solver, signum):
    # issue 33: the solver's process group and /tmp/tilesat-XXXX/formula.cnf outlived tilesat on SIGTERM
    run = Run(tmp_path, "solve", INSTANCES / "lpanel-6x6.txt", "--solver", f"ext:{slow_solver}")
    run.wait_for_children(3)  # the script and its two sleeps
    assert any(name.startswith("tilesat-") for name in os.listdir(run.tmp))  # the formula's folder
    if signum == signal.SIGKILL:
        run.signal(signum)
    else:
        _stopped_like_ctrl_c(run, signum)
    _nothing_left(run)


def test_timeout_2_around_an_ext_solver_leaves_nothing(tmp_path, slow_solver):
    # issue 33: `timeout 2 tilesat solve ok.txt --solver ext:./slow.sh` left the solver and its folder
    run = Run(tmp_path, "solve", INSTANCES / "lpanel-6x6.txt", "--solver", f"ext:{slow_solver}",
              wrapper=("timeout", "300"))
    run.wait_for_children(4)  # tilesat, the script and its two sleeps, before timeout's SIGTERM
    # SIGALRM is timeout's own timer running out (coreutils: the same path, exit 124): the time is up
    # now that everything runs, rather than after a fixed wait long enough for a loaded machine
    run.process.send_signal(signal.SIGALRM)
    out, err = run.process.communicate(timeout=60)
    assert run.process.returncode == 124 and "Traceback" not in err, err
    _nothing_left(run)


# -- a local Dask cluster --------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
def test_a_local_dask_cluster_goes_with_tilesat(tmp_path, signum):
    # issue 33: a Dask worker outlived SIGTERM for 10-30 s
    pytest.importorskip("distributed")
    run = Run(tmp_path, "count", INSTANCES / "pentomino-6x10.txt", "--cluster", "dask", "--jobs", "2")
    run.wait_for_children(3, seconds=180)  # the cluster's processes
    if signum == signal.SIGKILL:
        run.signal(signum)
    else:
        _stopped_like_ctrl_c(run, signum)
    processes, files = run.left_behind()
    run.clean_up()
    assert processes == [] and files == []  # dask's scratch folder included


# -- --jobs is capped -------------------------------------------------------------------------

@pytest.mark.parametrize("command", ["count", "solve", "check-unique", "pack"])
def test_jobs_beyond_the_cap_is_one_line(tmp_path, command):
    # issue 33: --jobs 10000 on a 2x4 board forked without end (493 children after 10 s)
    board = tmp_path / "b.txt"
    board.write_text("pieces: L4\n....\n....\n")
    run = run_tilesat(command, board, "--jobs", "10000", timeout=60)
    assert run.returncode == 2 and "--jobs" in run.error_line()
    assert run.peak_rss < 400 << 20


def test_count_jobs_100000_plans_no_millions_of_units(tmp_path):
    # issue 33: count --jobs 100000 planned two million units
    run = run_tilesat("count", INSTANCES / "pentomino-6x10.txt", "--jobs", "100000", timeout=60)
    assert run.returncode == 2 and "--jobs" in run.error_line()
    assert run.peak_rss < 400 << 20
