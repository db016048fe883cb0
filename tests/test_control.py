"""The run controller: deadlines, children that are killed, solvers that stop in time."""

import contextlib
import gc
import math
import os
import signal
import stat
import sys
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesat import load_instance
from tilesat.running.control import Deadline, TimedOut, call_in_child, check_timeout, deadline, stream_from_child, time_limit
from tilesat.errors import TilesatError
from tilesat.running import processes
from tilesat.sat.formula import compile_formula
from tilesat.model.instance import parse_instance
from tilesat.model.placements import generate_placements
from tilesat.questions.solve import check_unique, solve
from tilesat.sat.solvers import FIRST_SLICE, PysatSolver, make_solver


def mutilated(n: int) -> str:
    """Dominoes on the n x n board without two opposite corners: no tiling, and CDCL needs exponential time."""
    rows = [["."] * n for _ in range(n)]
    rows[0][0] = rows[n - 1][n - 1] = "#"
    return "pieces: I2\n" + "\n".join("".join(r) for r in rows) + "\n"


# --- deadlines --------------------------------------------------------------

@given(st.floats(allow_nan=True, allow_infinity=True))
def test_check_timeout_takes_finite_positive_seconds_only(x):
    if math.isfinite(x) and x > 0:
        assert check_timeout(x) == x
    else:
        with pytest.raises(TilesatError, match="--timeout"):
            check_timeout(x)


def test_check_timeout_refuses_text():
    with pytest.raises(TilesatError, match="number of seconds"):
        check_timeout("abc")


def test_nested_limits_keep_the_earlier_end():
    assert deadline().remaining() is None
    with time_limit(100) as outer:
        with time_limit(1000) as inner:
            assert inner is outer  # the outer ends first
            assert deadline().remaining() <= 100
        with time_limit(1) as tighter:
            assert tighter.remaining() <= 1
        with time_limit(None):
            assert deadline() is outer
    assert deadline().remaining() is None


def test_a_deadline_counts_from_its_start():
    d = Deadline(5, start=time.perf_counter() - 10)
    assert d.expired()
    with pytest.raises(TimedOut):
        d.check()


# --- children ---------------------------------------------------------------

def _spin_forever():
    while True:  # a busy C-like loop: only a kill stops it
        pass


def _fail():
    raise ValueError("broken engine")


def _count_up(n):
    return iter(range(n))


def test_call_in_child_returns_the_result():
    assert call_in_child(sum, [1, 2, 3]) == 6


def test_a_failing_child_is_one_clear_error():
    with pytest.raises(TilesatError, match="the engine failed: ValueError: broken engine"):
        call_in_child(_fail)


def test_a_child_past_the_deadline_is_killed_in_time():
    t0 = time.perf_counter()
    with pytest.raises(TimedOut), time_limit(0.5):
        call_in_child(_spin_forever)
    assert time.perf_counter() - t0 < 1.5


def test_stream_from_child_yields_everything_in_order():
    assert list(stream_from_child(_count_up, 1000)) == list(range(1000))


def test_stream_from_child_stops_with_its_consumer():
    stream = stream_from_child(_count_up, 10**9)
    assert [next(stream) for _ in range(5)] == [0, 1, 2, 3, 4]
    stream.close()  # the child goes; nothing hangs


# --- PySAT solvers ------------------------------------------------------------

def test_a_long_solve_stops_at_the_deadline_and_the_solver_is_spent():
    instance = parse_instance(mutilated(16))
    formula = compile_formula(generate_placements(instance), "pairwise")
    solver = PysatSolver("cadical195")
    solver.add_formula(formula)
    t0 = time.perf_counter()
    with pytest.raises(TimedOut), time_limit(1.0):
        solver.solve()
    assert time.perf_counter() - t0 < 2.0
    assert solver.spent
    with pytest.raises(TilesatError, match="was stopped"):
        solver.solve()
    solver.close()


@pytest.mark.parametrize("name", ["cadical195", "glucose4", "minisat22"])
def test_in_process_and_child_solves_agree(name, monkeypatch):
    """The same incremental questions answered in this process and after
    moving to a child (FIRST_SLICE = 0 forces the move at once)."""
    instance = load_instance(os.path.join(os.path.dirname(__file__), "..", "instances", "lpanel-4x8-multiple.txt"))
    formula = compile_formula(generate_placements(instance), "commander")

    def answers():
        with PysatSolver(name) as s:
            s.add_formula(formula)
            out = []
            while s.solve():
                chosen = sorted(v for v in s.model() if 0 < v <= formula.nplacements)
                out.append(chosen)
                s.add_clause([-v for v in chosen])
            return out, s.stats()["in_child"]

    here, moved = answers()
    monkeypatch.setattr("tilesat.sat.solvers.IN_PROCESS_CLAUSES", -1)  # every solve in the child
    there, moved_there = answers()
    assert not moved and moved_there
    assert sorted(here) == sorted(there) and len(here) >= 2


def test_the_child_has_its_first_request_before_our_copy_is_freed(monkeypatch):
    """Moving to the child: the first request goes out, then our copy of the solver is
    freed, so that the child searches while we free it (not after); the answer is the same."""
    from tilesat.running import control
    from pysat.solvers import Solver

    events = []
    send, delete = control.Child.send, Solver.delete
    monkeypatch.setattr(control.Child, "send", lambda self, message: (events.append("send"), send(self, message))[1])
    monkeypatch.setattr(Solver, "delete", lambda self: (events.append("delete"), delete(self))[1])
    monkeypatch.setattr("tilesat.sat.solvers.IN_PROCESS_CLAUSES", -1)  # every solve in the child
    formula = compile_formula(generate_placements(parse_instance("pieces: I2\n....\n....\n")), "pairwise")
    with PysatSolver("cadical195") as s:
        s.add_formula(formula)
        assert s.solve() and s.stats()["in_child"]
        assert events[:2] == ["send", "delete"]
        s.add_clause([-v for v in s.model() if 0 < v <= formula.nplacements])
        assert s.solve()  # the child answers the next request too


@pytest.mark.parametrize("name", ["glucose4", "minisat22"])  # CaDiCaL keeps its saved phases after a first solve
@pytest.mark.parametrize("in_child", [False, True])
def test_phases_set_between_solves_reach_the_solver_that_searches(monkeypatch, name, in_child):
    """Each tiling of the board, asked for by its phases (the pairwise encoding:
    placements are every variable), comes back on one solver, in the process and
    after the solver moved into its child.  Was (in the child): an AttributeError,
    set_phases called our freed copy."""
    formula = compile_formula(generate_placements(parse_instance("pieces: I2\n....\n....\n....\n")), "pairwise")
    P = formula.nplacements
    tilings = []
    with PysatSolver(name) as s:
        s.add_formula(formula)
        while s.solve():
            tilings.append(sorted(v for v in s.model() if 0 < v <= P))
            s.add_clause([-v for v in tilings[-1]])
    assert len(tilings) == 11
    if in_child:
        monkeypatch.setattr("tilesat.sat.solvers.IN_PROCESS_CLAUSES", -1)
    with PysatSolver(name) as s:
        s.add_formula(formula)
        assert s.solve() and s.stats()["in_child"] == in_child
        for tiling in tilings:
            s.set_phases([v if v in tiling else -v for v in range(1, P + 1)])
            assert s.solve() and sorted(v for v in s.model() if 0 < v <= P) == tiling


def test_a_solver_that_may_not_start_children_searches_as_the_runs_child_does(monkeypatch):
    """A portfolio member (in a child, no children of its own) solves on the same
    conflict slices as the single run's child: the same search, conflict for
    conflict.  Was: one unsliced call, another search path (60x60 s1: 123 s
    against 34 s), so --jobs 2 lost boards that --jobs 1 won (issue 15)."""
    monkeypatch.setattr("tilesat.sat.solvers.CHILD_SLICE", 2_000)
    formula = compile_formula(generate_placements(parse_instance(mutilated(10))), "ladder")  # 12k conflicts

    def conflicts():
        with PysatSolver("cadical195") as s:
            s.add_formula(formula)
            first = s.solve()
            s.add_clause([1, 2])  # a second question on the same solver
            second = s.solve()
            return first, second, s.stats()["conflicts"], s.stats()["in_child"]

    first, second, in_child, moved = conflicts()
    monkeypatch.setattr("tilesat.sat.solvers.may_start_children", lambda: False)
    first_here, second_here, here, moved_here = conflicts()
    assert moved and not moved_here
    assert (first, second) == (first_here, second_here) == (False, False)
    assert in_child == here > 2_000 + FIRST_SLICE  # past several slices, and the same number of conflicts


def test_solve_and_check_unique_say_unknown_at_the_timeout():
    instance = parse_instance(mutilated(16))
    t0 = time.perf_counter()
    result = check_unique(instance, timeout=1.0, certificates=False)  # the LP would prove it at once
    assert result.verdict == "unknown" and result.stats["stopped"] == "timeout"
    assert time.perf_counter() - t0 < 2.0
    assert solve(parse_instance(mutilated(4)), timeout=30).verdict == "none"  # a limit that is not reached changes nothing


def test_first_slice_is_small():
    assert 0 < FIRST_SLICE <= 20_000  # Ctrl-C waits for it: it must stay short


# --- external solvers ---------------------------------------------------------

@pytest.fixture
def script(tmp_path):
    def make(body: str, name="fake-solver"):
        p = tmp_path / name
        p.write_text("#!/bin/sh\n" + body)
        p.chmod(p.stat().st_mode | stat.S_IEXEC)
        return str(p)

    return make


def _small_formula():
    instance = parse_instance("pieces: I2\n..\n..\n")
    return compile_formula(generate_placements(instance), "pairwise")


def test_ext_solver_killed_at_the_deadline_with_its_children(script, tmp_path):
    marker = tmp_path / "grandchild.pid"
    path = script(f"sleep 60 &\necho $! > {marker}\nwait\n")
    solver = make_solver(f"ext:{path}")
    solver.add_formula(_small_formula())
    t0 = time.perf_counter()
    with pytest.raises(TimedOut), time_limit(0.7):
        solver.solve()
    assert time.perf_counter() - t0 < 1.7
    pid = int(marker.read_text())
    time.sleep(0.1)
    assert not _running(pid)  # the wrapper's own child went with the group


def _running(pid: int) -> bool:
    """Alive and not a zombie (a container's init may never reap orphans)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_ext_solver_with_a_wrong_model_is_named_as_wrong(script):
    path = script("echo 's SATISFIABLE'\necho 'v -1 -2 -3 -4 0'\n")  # no cell covered
    solver = make_solver(f"ext:{path}")
    solver.add_formula(_small_formula())
    with pytest.raises(TilesatError, match="does not satisfy the formula.*solver's answer is wrong"):
        solver.solve()


def test_ext_solver_printing_bytes_that_are_not_utf8(script):
    path = script("printf 'c \\377\\376 junk\\n'\necho 's UNSATISFIABLE'\n")
    solver = make_solver(f"ext:{path}")
    solver.add_formula(_small_formula())
    assert solver.solve() is False


def test_ext_command_that_cannot_be_split():
    with pytest.raises(TilesatError, match="cannot split the command"):
        make_solver("ext:foo 'bar")


def test_a_long_solve_reports_its_conflicts_while_it_runs(monkeypatch):
    """The progress display stays live: CaDiCaL in the child reports its conflicts between slices."""
    monkeypatch.setattr("tilesat.sat.solvers.CHILD_SLICE", 2_000)
    from tilesat.engines.sat import TilingSearch

    messages = []
    with TilingSearch(parse_instance(mutilated(16)), progress=lambda m, done=None, total=None: messages.append(m)) as s:
        with pytest.raises(TimedOut), time_limit(1.5):
            s.next()
    counts = [int(m.split("· ")[1].split()[0].replace(",", "")) for m in messages if "conflicts" in m]
    assert len(counts) >= 2 and counts == sorted(counts) and counts[-1] > counts[0]


def test_timed_out_survives_pickling():
    import pickle

    e = pickle.loads(pickle.dumps(TimedOut(2.5, found=[1, 2])))
    assert (e.seconds, e.found, str(e)) == (2.5, [1, 2], "time limit of 2.5 s reached")


def _verdict_in_a_child(text):
    return check_unique(parse_instance(text)).verdict


def test_a_solve_inside_a_child_runs_there(monkeypatch):
    """A daemonic child may not start processes: a solve in one (compare's runs) stays in it.
    Was: 'daemonic processes are not allowed to have children' on compare's long runs."""
    monkeypatch.setattr("tilesat.sat.solvers.IN_PROCESS_CLAUSES", -1)  # would move to a child at once
    assert call_in_child(_verdict_in_a_child, mutilated(6)) == "none"
    assert call_in_child(_verdict_in_a_child, "pieces: I2\n....\n....\n") == "multiple"


# --- interrupts lost in callbacks CPython runs "unraisably" ---------------------

@contextlib.contextmanager
def interrupts_handled():
    """As in a command (``friendly``): Ctrl-C raises, one lost is kept; everything put back after."""
    saved = {s: signal.getsignal(s) for s in processes.INTERRUPTING}
    restore = processes.handle_interrupts()
    try:
        yield
    finally:
        restore()
        processes.forget_interrupts()
        for s, handler in saved.items():
            signal.signal(s, handler)


class _RaisesInDel:
    def __init__(self, raise_it):
        self.raise_it = raise_it

    def __del__(self):
        self.raise_it()


def _lose_in_a_del(raise_it):
    _RaisesInDel(raise_it)  # dropped at once: __del__ runs, and what it raises is unraisable


def _lose_in_a_gc_callback(raise_it):
    def callback(phase, info):
        gc.callbacks.remove(callback)
        raise_it()

    gc.callbacks.append(callback)
    gc.collect()


def _ctrl_c():
    signal.raise_signal(signal.SIGINT)


def _ctrl_c_in_a_new_run():
    """The first Ctrl-C of a new run: a run raises its first interrupt only (see
    test_interrupts_after_the_first_of_a_run_are_only_noted)."""
    processes.forget_interrupts()
    _ctrl_c()


@pytest.mark.parametrize("lose", [_lose_in_a_del, _lose_in_a_gc_callback])
def test_an_interrupt_lost_in_a_callback_is_raised_once_at_the_next_check(lose, monkeypatch):
    unraisable = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    with interrupts_handled():
        lose(_ctrl_c)
        assert unraisable == []  # kept, not printed as "Exception ignored"
        with pytest.raises(KeyboardInterrupt):
            Deadline(None).check()
        Deadline(None).check()  # once
        lose(_ctrl_c_in_a_new_run)
        with pytest.raises(KeyboardInterrupt):
            with time_limit(5):
                call_in_child(_count_up, 3)  # the wait on a child polls too


def _noted(ctrl_c) -> None:
    try:
        ctrl_c()
    except KeyboardInterrupt:
        pytest.fail("an interrupt after the run's first raised KeyboardInterrupt again")


def test_interrupts_after_the_first_of_a_run_are_only_noted():
    """A second Ctrl-C (or SIGTERM) while the first one's KeyboardInterrupt unwinds must not raise
    again: one raised in the report's first step escaped it, and typer ended the run silently with 130."""
    with interrupts_handled():
        with pytest.raises(KeyboardInterrupt):
            _ctrl_c()
        _noted(_ctrl_c)
        _noted(lambda: signal.raise_signal(signal.SIGTERM))
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            _noted(_ctrl_c)  # in the report's first step too
            processes.ignore_interrupts()
        assert processes.interrupted_status() == 128 + signal.SIGINT  # the first one's
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    with interrupts_handled(), pytest.raises(KeyboardInterrupt):
        _ctrl_c()  # the next run raises its first again (in-process callers run several)


def test_a_ctrl_c_pending_as_the_report_begins_is_only_noted(monkeypatch):
    """signal.signal first runs the handlers of signals pending: the report's own call (ignore_interrupts)
    must find the run stopping already, even where its KeyboardInterrupt came from no signal (a
    partial result's own, a caller's)."""
    set_handler = signal.signal
    pending = [signal.SIGINT]

    def with_one_pending(signum, handler):
        if pending:
            signal.raise_signal(pending.pop())
        return set_handler(signum, handler)

    with interrupts_handled():
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            monkeypatch.setattr(signal, "signal", with_one_pending)
            _noted(processes.ignore_interrupts)
            monkeypatch.undo()
        assert not pending and signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def test_a_lost_interrupt_is_raised_in_its_own_process_only():
    with interrupts_handled():
        _lose_in_a_del(_ctrl_c)
        pid = os.fork()
        if pid == 0:
            try:
                Deadline(None).check()
                os._exit(0)
            except BaseException:
                os._exit(1)
        assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0  # a forked child does not stop for its parent
        with pytest.raises(KeyboardInterrupt):
            Deadline(None).check()


def test_a_lost_interrupt_does_not_cut_the_report_of_one_that_arrived():
    with interrupts_handled():
        _lose_in_a_del(_ctrl_c)
        processes.ignore_interrupts()  # a Ctrl-C reached the command's handler: it reports what it had
        Deadline(None).check()


def test_inside_interrupts_at_polls_the_first_interrupt_waits_for_the_next_poll():
    """fuzz runs hypothesis (code in the garbage collector's callbacks) inside: the handler only
    notes a Ctrl-C and the next poll raises it, once; later ones are only noted there and after
    (fuzz's report of what it had: a second Ctrl-C once cut it short)."""
    with interrupts_handled():
        with processes.interrupts_at_polls():
            _noted(_ctrl_c)
            _noted(_ctrl_c)
            with pytest.raises(KeyboardInterrupt):
                Deadline(None).check()
            Deadline(None).check()  # once
        _noted(_ctrl_c)  # the report, after the run
        _noted(lambda: signal.raise_signal(signal.SIGTERM))
        assert processes.interrupted_status() == 128 + signal.SIGINT


def test_an_interrupt_after_the_last_poll_is_taken_by_the_run():
    with interrupts_handled():
        with processes.interrupts_at_polls():
            assert not processes.interrupt_waiting()
            _noted(_ctrl_c)
            assert processes.interrupt_waiting() and not processes.interrupt_waiting()
        time.sleep(processes.UNREPORTED_SECONDS + 0.05)
        Deadline(None).check()  # the run reported it: no poll raises it again


def test_an_interrupt_the_run_said_is_not_raised_again_by_the_reports_polls():
    """fuzz says a Ctrl-C in its result; the command's report (a disagreement's files) then polls:
    were the interrupt still unreported, a poll UNREPORTED_SECONDS after it would cut the report."""
    with interrupts_handled():
        with processes.interrupts_at_polls():
            _noted(_ctrl_c)
            with pytest.raises(KeyboardInterrupt):
                Deadline(None).check()
            processes.interrupt_said()
        time.sleep(processes.UNREPORTED_SECONDS + 0.05)
        try:
            Deadline(None).check()
        except KeyboardInterrupt:
            pytest.fail("the report's poll raised the interrupt the run had said")
        _noted(_ctrl_c)  # later ones stay only noted


def test_interrupts_at_polls_handles_ctrl_c_where_no_command_did():
    """A library caller's fuzz(): its Ctrl-C stops the run at a poll, its own handler comes back after,
    and the interrupt ends with the run (a later run's poll does not raise it)."""
    saved = signal.getsignal(signal.SIGINT)
    with processes.interrupts_at_polls():
        _noted(_ctrl_c)
        with pytest.raises(KeyboardInterrupt):
            Deadline(None).check()
    assert signal.getsignal(signal.SIGINT) is saved
    time.sleep(processes.UNREPORTED_SECONDS + 0.05)
    Deadline(None).check()


def test_after_the_work_is_done_interrupts_are_only_noted():
    """Once the command has run (its status decided), a Ctrl-C changes nothing; in the console
    script's process the handlers then ignore them to the end (Python's would make a traceback, or
    a death by SIGINT at the interpreter's exit)."""
    with interrupts_handled():
        processes.work_done()
        _noted(_ctrl_c)
        _noted(lambda: signal.raise_signal(signal.SIGHUP))
    saved = {s: signal.getsignal(s) for s in processes.INTERRUPTING}
    try:
        processes.ends_with_its_command()
        processes.handle_interrupts()()
        assert all(signal.getsignal(s) is signal.SIG_IGN for s in processes.INTERRUPTING)
    finally:
        processes._ENDS_WITH_COMMAND.clear()
        processes.forget_interrupts()
        for s, handler in saved.items():
            signal.signal(s, handler)


def _raise(error):
    def raise_it():
        raise error

    return raise_it


def test_other_unraisable_errors_still_reach_the_hook(monkeypatch):
    unraisable = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    with interrupts_handled():
        _lose_in_a_del(_raise(ValueError("in __del__")))
        _lose_in_a_del(_raise(KeyboardInterrupt()))  # no interrupt arrived: not one of ours
        Deadline(None).check()
    assert [u.exc_type for u in unraisable] == [ValueError, KeyboardInterrupt]
    assert sys.unraisablehook == unraisable.append  # put back


def _error_after(raise_first, then):
    try:
        try:
            raise_first()
        except BaseException as e:
            then(e)
    except Exception as e:
        return e


def _from(error):
    def then(cause):
        raise error from cause

    return then


def _while_handling(error):
    def then(handled):
        raise error

    return then


def _from_none(error):
    def then(cause):
        raise error from None

    return then


def test_an_error_caused_by_this_runs_interrupt_is_the_interrupt():
    with interrupts_handled():
        caused = _error_after(_ctrl_c, _from(ImportError("initialization failed")))
        # the real case: highspy's import interrupted, then scipy's (the fallback) not found
        fallback = _error_after(_raise(_error_after(_ctrl_c_in_a_new_run, _from(ImportError("init")))),
                                _while_handling(ImportError("scipy")))
        assert processes.interrupt_behind(caused) and processes.interrupt_behind(fallback)
        assert not processes.interrupt_behind(_error_after(_ctrl_c_in_a_new_run, _from_none(ValueError("said"))))
        assert not processes.interrupt_behind(ValueError("no cause"))
        processes.ignore_interrupts()  # reported: a later error is the report's own
        assert not processes.interrupt_behind(caused)
    assert not processes.interrupt_behind(caused)  # no interrupt arrived in this run


def _swallowed():
    try:
        _ctrl_c()
    except KeyboardInterrupt:
        pass  # as some C code does (Cython's module init of numpy.random._generator)


def test_an_interrupt_not_reported_is_raised_once_after_a_moment(monkeypatch):
    monkeypatch.setattr(processes, "UNREPORTED_SECONDS", 0.05)
    with interrupts_handled():
        _swallowed()
        Deadline(None).check()  # a partial result caught on purpose has the moment to be reported
        time.sleep(0.06)
        with pytest.raises(KeyboardInterrupt):
            Deadline(None).check()
        Deadline(None).check()  # once
        _swallowed()
        processes.ignore_interrupts()  # reported: nothing more
        time.sleep(0.06)
        Deadline(None).check()
