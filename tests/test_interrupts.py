"""Real processes, real signals: Ctrl-C and --timeout stop every command in time.

A real ``tilesat`` subprocess gets SIGINT at random moments during a solve,
a count, a list and a pack (the moments are drawn from a fixed seed, so a
failure repeats); each time it must exit 130 within two seconds, with no
traceback and no hang.  Before the run controller one interrupt in about
twelve hung in ``free()`` inside CaDiCaL.
"""

import json
import os
import random
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from test_control import mutilated
from test_issue12_why import _cpu_seconds, finish, start_busy

INSTANCES = Path(__file__).resolve().parent.parent / "instances"
CLI = [sys.executable, "-m", "tilesat"]


@pytest.fixture(scope="module")
def boards(tmp_path_factory):
    d = tmp_path_factory.mktemp("boards")
    (d / "mut16.txt").write_text(mutilated(16))
    (d / "mut14.txt").write_text(mutilated(14))
    (d / "v5.txt").write_text("pieces: V5\n" + "................\n" * 16)
    return d


def _commands(boards):
    return [
        ["solve", boards / "mut16.txt", "--no-certificate"],  # CaDiCaL, no tiling to find
        ["count", boards / "mut14.txt", "--method", "ganak", "--no-certificate"],  # ganak: no Python until it is done
        ["list", INSTANCES / "pentomino-6x10.txt", "--method", "blocking"],  # the listing that once hung
        ["list", INSTANCES / "pentomino-6x10.txt", "--method", "dlx"],
        ["pack", boards / "v5.txt"],  # incremental totalizer
        ["pack", boards / "v5.txt", "--method", "rc2"],
    ]


def _run_and_interrupt(args, delay):
    proc = subprocess.Popen(CLI + [str(a) for a in args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    launched = time.perf_counter()
    # Past the interpreter's own start-up first (a Ctrl-C inside Python's
    # `site` import is Python's fatal error, before any code of ours runs; a
    # loaded machine can spend the whole delay there): 0.08 s of CPU is past it.
    while _cpu_seconds(proc.pid) < 0.08 and proc.poll() is None and time.perf_counter() - launched < 30:
        time.sleep(0.005)
    time.sleep(max(0.0, delay - (time.perf_counter() - launched)))
    sent = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    return finish(proc, sent)  # (status, seconds since the signal, stdout, stderr); fails after 10 s


def _interrupt_each(runs):
    """_run_and_interrupt for each (args, delay), two processes at a time (the suite's machine has two
    cores, and pytest mostly sleeps here): the same runs and moments, in about half the time."""
    with ThreadPoolExecutor(2) as pool:
        return list(pool.map(lambda run: _run_and_interrupt(*run), runs))


@pytest.mark.slow
def test_sigint_at_random_moments_exits_130_within_two_seconds(boards):
    rng = random.Random(12)
    commands = _commands(boards)
    runs = [(commands[i % len(commands)], rng.uniform(0.2, 2.5)) for i in range(24)]  # start-up, compiling, loading, solving
    results = _interrupt_each(runs)
    assert len(results) >= 20
    for (args, delay), (code, took, out, err) in zip(runs, results):
        assert "Traceback" not in err, err
        # 130; rarely (seen once in ~100 runs) the interpreter ends by SIGINT
        # after the command's own message, which a shell also reports as 130
        assert code in (130, -signal.SIGINT), (args, delay, code, err)
        assert took < 2.0, (args, delay, took)
        assert "interrupted" in err or "interrupted" in out, (args, err, out)


@pytest.mark.slow
def test_solve_on_the_mutilated_board_interrupted_20_times(boards):
    """The issue's case: 1 in 12 interrupts hung in free() inside CaDiCaL before."""
    rng = random.Random(16)
    runs = [(["solve", boards / "mut16.txt", "--no-certificate"], rng.uniform(0.2, 2.0)) for _ in range(20)]
    for (_, delay), (code, took, _, err) in zip(runs, _interrupt_each(runs)):
        assert code in (130, -signal.SIGINT) and took < 2.0, (delay, code, took, err)
        assert "Traceback" not in err


# A Ctrl-C can vanish before it reaches the command: one that lands while
# CPython runs a callback "unraisably" (importlib's module-lock weakref callback,
# in a CI run) raises KeyboardInterrupt there, where CPython prints "Exception
# ignored" and drops it, and the solve ran on; one that lands inside a C
# extension's import comes out as ImportError "initialization failed" (highspy,
# 2 in 20 runs of the random-moments test), and the command ended with a
# traceback; some C code swallows it silently (numba's import of numpy.random,
# 2 in 20 runs: the listing ran on).  This wrapper does one of those (argv[1]) once the solver's child
# runs, then runs the real command.
MISHANDLES_AN_INTERRUPT = r"""
import os, signal, sys, time, weakref
from tilesat.running import control

def in_a_weakref_callback():
    class Thing:
        pass
    thing = Thing()
    ref = weakref.ref(thing, lambda r: signal.raise_signal(signal.SIGINT))
    del thing  # the callback runs here, and the KeyboardInterrupt it raises is unraisable

def swallowed():  # as Cython's module init of numpy.random._generator does with one raised in abc.register
    try:
        signal.raise_signal(signal.SIGINT)
    except KeyboardInterrupt:
        pass

def in_an_import():
    try:
        signal.raise_signal(signal.SIGINT)
    except KeyboardInterrupt as e:
        raise ImportError("initialization failed") from e

how = {"weakref": in_a_weakref_callback, "swallowed": swallowed, "import": in_an_import}[sys.argv.pop(1)]
recv = control.Child.recv
def first_wait_mishandles_an_interrupt(self):
    control.Child.recv = recv
    os.write(2, f"interrupt sent at {time.time()}\n".encode())
    how()
    return recv(self)

control.Child.recv = first_wait_mishandles_an_interrupt
sys.argv[0] = "tilesat"
from tilesat.main import main
main()
"""


@pytest.mark.parametrize("how", ["weakref", "swallowed", "import"])
def test_an_interrupt_lost_or_turned_into_another_error_still_stops_the_solve(boards, how):
    proc = subprocess.Popen([sys.executable, "-c", MISHANDLES_AN_INTERRUPT, how, "solve", str(boards / "mut16.txt"),
                             "--no-certificate"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    code, _, out, err = finish(proc, time.perf_counter())
    ended = time.time()
    sent = [float(line.split()[-1]) for line in err.splitlines() if line.startswith("interrupt sent at ")]
    assert len(sent) == 1, err  # the solve waited on its child, where the interrupt went astray
    assert code == 130, (code, err)
    assert ended - sent[0] < 1.0, err
    assert "interrupted" in err and "Exception ignored" not in err and "Traceback" not in err, err


def test_interrupted_count_says_what_it_had(boards):
    proc = start_busy(["count", INSTANCES / "pentomino-6x10.txt", "--method", "dlx", "--json"], 0.3)  # counting (6 s), not starting
    sent = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    code, _, out, err = finish(proc, sent)
    assert code == 130, err
    data = json.loads(out)
    assert data["stopped"] == "interrupted" and not data["exact"] and data["count"] >= 0


def _timed(args):
    t0 = time.perf_counter()
    proc = subprocess.run(CLI + [str(a) for a in args], capture_output=True, text=True, timeout=60)
    return proc, time.perf_counter() - t0


def test_solve_with_timeout_answers_unknown_124_in_time(boards):
    proc, took = _timed(["solve", boards / "mut16.txt", "--no-certificate", "--timeout", "2"])
    assert proc.returncode == 124, proc.stderr
    assert proc.stdout.startswith("unknown: the time limit of 2 s passed")
    assert took < 3.0  # the issue's figure (2.1 s on a quiet machine)
    proc, _ = _timed(["check-unique", boards / "mut16.txt", "--no-certificate", "--timeout", "1", "--json"])
    data = json.loads(proc.stdout)
    assert proc.returncode == 124 and data["verdict"] == "unknown" and data["stats"]["stopped"] == "timeout"


@pytest.mark.parametrize("args, check", [
    (["count", "{mut14}", "--method", "ganak", "--no-certificate", "--json"], lambda out: json.loads(out)["stopped"] == "timeout"),
    (["count", "{pent}", "--method", "blocking", "--json"],
     lambda out: (d := json.loads(out))["stopped"] == "timeout" and not d["exact"]),
    (["list", "{pent}"], lambda out: True),
    (["pack", "{v5}", "--json"], lambda out: (d := json.loads(out))["stopped"] == "timeout" and not d["proved"]),
    (["pack", "{v5}", "--method", "rc2", "--json"], lambda out: json.loads(out)["stopped"] == "timeout"),
])
def test_every_searching_command_honours_timeout(boards, args, check):
    names = {"{mut14}": boards / "mut14.txt", "{pent}": INSTANCES / "pentomino-6x10.txt", "{v5}": boards / "v5.txt"}
    proc, took = _timed([names.get(a, a) for a in args] + ["--timeout", "1.5"])
    assert proc.returncode == 124, proc.stderr
    assert "Traceback" not in proc.stderr
    assert check(proc.stdout), proc.stdout
    assert took < 1.5 + 2.0  # start-up and clean-up included, with room for a busy machine


@pytest.mark.parametrize("value", ["nan", "0", "-1", "inf"])
def test_bad_timeouts_are_usage_errors(boards, value):
    proc, _ = _timed(["solve", boards / "mut16.txt", "--no-certificate", "--timeout", value])
    assert proc.returncode == 2 and "--timeout" in proc.stderr and "Traceback" not in proc.stderr


def test_generate_honours_timeout_and_writes_nothing(tmp_path):
    out = tmp_path / "puzzle.txt"
    proc, took = _timed(["generate", "--size", "60x60", "--seed", "3", "--timeout", "1.5", "--out", out])
    assert proc.returncode == 124 and "nothing written" in proc.stderr and not out.exists()
    assert took < 3.0


def test_interrupted_generate_says_so(tmp_path):
    code, took, _, err = _run_and_interrupt(["generate", "--size", "60x60", "--seed", "3"], 1.5)
    assert code in (130, -signal.SIGINT) and took < 2.0
    assert "no tiling found" not in err and ("no unique board yet" in err or "while starting" in err)


@pytest.mark.parametrize("args", [
    ["list", INSTANCES / "pentomino-6x10.txt"],
    ["compare", INSTANCES / "lpanel-6x6.txt", "--encodings", "pairwise,ladder", "--solvers", "cadical195"],
])
def test_a_pipe_closed_early_ends_quietly_with_141(args):
    """Was: list said 'cannot write None: Broken pipe' (exit 2); compare exited 1, the code of a disagreement."""
    read, write = os.pipe()
    os.close(read)  # closed before anything is written: every write fails, whatever the timing
    proc = subprocess.run(CLI + [str(a) for a in args], stdout=write, stderr=subprocess.PIPE, timeout=60)
    os.close(write)
    err = proc.stderr.decode()
    assert proc.returncode == 141, err
    assert "Traceback" not in err and "error" not in err


# --- a Ctrl-C once the command has run: its output is complete, its status stands ------------------

#: The console script with a Ctrl-C at an exact moment after its command has run: where the command's
#: wrapper (cli.common.friendly) hands the signals back, or at the interpreter's exit.
CTRL_C_AT_THE_END = """
import atexit, signal, sys
from tilesat.running import processes

moment = sys.argv.pop(1)
if moment == "interpreter exit":
    atexit.register(signal.raise_signal, signal.SIGINT)  # registered first: runs last
else:
    handle = processes.handle_interrupts

    def handle_interrupts():
        restore = handle()

        def ctrl_c_then_restore():
            signal.raise_signal(signal.SIGINT)
            restore()

        return ctrl_c_then_restore

    processes.handle_interrupts = handle_interrupts
from tilesat.main import main
main()
"""


@pytest.mark.parametrize("moment", ["command returned", "interpreter exit"])
def test_a_ctrl_c_after_the_command_ran_changes_nothing(moment):
    """Was: exit 130 without a word (the KeyboardInterrupt escaped into typer), or
    'Exception ignored in atexit callback ... KeyboardInterrupt' on stderr."""
    proc = subprocess.run([sys.executable, "-c", CTRL_C_AT_THE_END, moment, "check-unique",
                           str(INSTANCES / "lpanel-4x8-multiple.txt"), "--json"], capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stderr) == (1, ""), (proc.returncode, proc.stderr)  # multiple: 1, as without it
    assert json.loads(proc.stdout)["verdict"] == "multiple"


def test_a_ctrl_c_once_the_output_is_out_changes_nothing():
    """The user sees the whole output, presses Ctrl-C while the process ends: the output and the
    exit status stay as they were.  stdout, block-buffered to a pipe, reaches it in cli/root's last
    flush, after the command ran, so the Ctrl-C lands in the process's end.  Was: death by SIGINT
    (-2) at the interpreter's exit or a KeyboardInterrupt traceback, in 29 runs of 30."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    for i in range(6):
        proc = subprocess.Popen(CLI + ["solve", str(INSTANCES / "lpanel-6x6.txt"), "--json"], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        document = proc.stdout.readline()
        time.sleep(0.002 * (i % 3))
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        assert (proc.returncode, err, out) == (0, "", ""), (i, proc.returncode, err)
        assert json.loads(document)["verdict"] == "solved"


#: The console script with a Ctrl-C while the command prints its answer: check-unique's report and
#: count's line each raise SIGINT once written (a Ctrl-C pressed as the answer appears).
CTRL_C_WHILE_ANSWERING = """
import signal, sys
import tilesat.cli.count as count_cli
import tilesat.cli.search as search_cli

def ctrl_c_after(write):
    def written(*args, **kwargs):
        write(*args, **kwargs)
        sys.stdout.flush()
        signal.raise_signal(signal.SIGINT)
    return written

search_cli._report = ctrl_c_after(search_cli._report)
count_cli.print_line = ctrl_c_after(count_cli.print_line)
from tilesat.main import main
main()
"""


@pytest.mark.parametrize("command, status, first_line", [
    ("check-unique", 1, "multiple: at least two tilings"),
    ("solve", 0, "solved"),
    ("count", 0, "count: 182 tilings"),
])
def test_a_ctrl_c_while_the_answer_is_printed_changes_nothing(command, status, first_line):
    """The answer comes out whole and the command ends with its status.  Was: exit 130 and
    "interrupted: no tiling found yet; no verdict" under the verdict and both tilings."""
    proc = subprocess.run([sys.executable, "-c", CTRL_C_WHILE_ANSWERING, command, str(INSTANCES / "lpanel-4x8-multiple.txt")],
                          capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stderr) == (status, ""), (proc.returncode, proc.stderr)
    assert proc.stdout.startswith(first_line), proc.stdout


#: A Ctrl-C that a callback swallowed during a count the count finished despite (noted as lost).
CTRL_C_LOST_IN_THE_COUNT = """
import os
import tilesat.cli.count as count_cli
from tilesat.running import processes

counted = count_cli.count

def count(*args, **kwargs):
    result = counted(*args, **kwargs)
    processes._RECEIVED.append(2)
    processes._LOST[:] = [os.getpid()]  # as the unraisable hook notes one lost in a __del__
    return result

count_cli.count = count
from tilesat.main import main
main()
"""


def test_a_ctrl_c_lost_in_a_count_that_finished_does_not_follow_its_answer():
    """Was: the count's line, then exit 130 and "interrupted: no tiling found yet; no verdict"."""
    proc = subprocess.run([sys.executable, "-c", CTRL_C_LOST_IN_THE_COUNT, "count", str(INSTANCES / "lpanel-4x8-multiple.txt")],
                          capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stderr) == (0, ""), (proc.returncode, proc.stderr)
    assert proc.stdout.startswith("count: 182 tilings"), proc.stdout
