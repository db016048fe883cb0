"""The portfolio (--jobs): every member's answer passes the independent
checker and agrees with the brute-force oracle, with --jobs 1 and with the
other members; the members really differ; --timeout and Ctrl-C stop every
member in time and leave no process behind."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from test_pack import oracle_optimum, small_instances
from test_cli import run
from test_property import CAP, as_key, instances, oracle, oracle_checker
from test_sweep import open_boards

from tilesat import load_instance
from tilesat.running.control import Child
from tilesat.errors import TilesatError
from tilesat.questions.pack import pack
from tilesat.model.placements import generate_placements
from tilesat.engines import portfolio
from tilesat.engines.portfolio import (CONFIGS, Config, _member, _tiling_member, check_jobs, configurations, cores,
                                       race_tilings, sweep_configurations)
from tilesat.engines.prune import prune
from tilesat.engines.repair_sweep import ATTEMPTS
from tilesat.engines.sweep import sweep_problem
from tilesat.questions.solve import check_unique, solve
from tilesat.sat.options import SatOptions
from tilesat.sat.solvers import OPEN_BOARD_OPTIONS, default_options

ROOT = Path(__file__).resolve().parent.parent
HARD = ROOT / "instances" / "hard-60x60" / "hard-L4-60x60-s2.txt"  # minutes to a first tiling: a race that lasts


@settings(max_examples=40, deadline=None)
@given(instances(), st.sampled_from(CONFIGS))
def test_each_member_alone_and_the_race_agree_with_the_oracle(instance, config):
    truth = oracle(instance)
    expected = {0: "none", 1: "unique"}.get(len(truth), "multiple")
    checker = oracle_checker(instance)
    # one member alone, every answer checked here by the brute force's own checker too
    placements = generate_placements(instance)
    found = []
    if len(placements):
        race_tilings(placements, 2, [config], SatOptions("auto", "cadical195", "seqcounter"), found)
        assert len(found) == min(2, len(truth))
        for t in found:
            assert checker(as_key(t)) and (as_key(t) in truth or len(truth) > CAP)
        assert len({as_key(t) for t in found}) == len(found)
    # the whole race and --jobs 1 give the oracle's verdict
    for jobs in (1, 3):
        result = check_unique(instance, method="sat", jobs=jobs)
        assert result.verdict == expected, (jobs, result.stats)
        assert all(checker(as_key(t)) for t in result.tilings)
    assert solve(instance, method="sat", jobs=2).verdict == ("none" if not truth else "solved")


@settings(max_examples=15, deadline=None)
@given(small_instances(), st.sampled_from(["pieces", "cells"]))
def test_pack_race_finds_the_brute_force_optimum(instance, objective):
    truth = oracle_optimum(instance, objective)
    result = pack(instance, objective, jobs=2)
    assert result.proved
    assert result.optimum == truth
    assert result.optimum == pack(instance, objective).optimum


def test_members_really_differ_and_get_their_options():
    members = configurations(8, "auto", "cadical195")
    assert len({(m.encoding, m.options, m.phases, m.seed) for m in members}) == 8
    assert members[0].encoding is None and members[0].options == ()  # member 0 is the --jobs 1 run
    instance = load_instance(ROOT / "instances" / "hard-L4-30x30-s1.txt")
    placements = generate_placements(instance)
    seen = set()
    for config in members[:4]:
        with Child(_tiling_member, config, placements, "auto", "cadical195", "seqcounter") as child:
            kind, compiled = child.recv()  # the child reports what its solver was given, before solving
        assert kind == "compiled"
        # member 0 has no options of its own: it gets what --jobs 1 gets on this open board
        assert compiled["options"] == (dict(config.options) or OPEN_BOARD_OPTIONS)
        if config.encoding:
            assert compiled["encoding"] == config.encoding
        seen.add((compiled["encoding"], tuple(sorted(compiled["options"].items()))))
    assert len(seen) == 4
    # an encoding asked for by name holds for every member; other solvers get phases, not CaDiCaL options
    assert {m.encoding for m in configurations(5, "pairwise", "cadical195")} == {"pairwise"}
    assert all(m.options == () for m in configurations(4, "auto", "glucose4"))
    assert [m.phases for m in configurations(3, "auto", "glucose4")] == [None, "random", "random"]
    assert len(configurations(20, "auto", "cadical195")) == 20


def test_sweep_members_share_the_attempts():
    for jobs in range(2, 14):
        members = sweep_configurations(jobs, "auto", "cadical195")
        sweeps = [m for m in members if m.sweep_attempts]
        assert len(members) == jobs and sweeps == members[:len(sweeps)]
        assert len(sweeps) == max(1, min(ATTEMPTS, jobs // 2))
        # every attempt once, whatever the number of members
        assert sorted(a for m in sweeps for a in m.sweep_attempts) == list(range(ATTEMPTS))
        assert members[len(sweeps):] == configurations(jobs - len(sweeps), "auto", "cadical195")
        assert all(m.describe().startswith("repairing sweep, attempt") for m in sweeps)


@settings(max_examples=30, deadline=None)
@given(open_boards(counts=True, side=5))
def test_a_race_with_sweep_members_agrees_with_the_oracle(instance):
    assert sweep_problem(instance) is None
    placements = generate_placements(instance)
    assume(len(placements) > 0)
    truth = oracle(instance)
    checker = oracle_checker(instance)
    alive = prune(placements).alive
    members = sweep_configurations(6, "auto", "cadical195")
    found = []
    stats = race_tilings(placements, 2, members, SatOptions("auto", "cadical195", "seqcounter"), found, alive=alive)
    assert len(found) == min(2, len(truth)), stats
    assert all(checker(as_key(t)) and (as_key(t) in truth or len(truth) > CAP) for t in found)
    assert len({as_key(t) for t in found}) == len(found)
    assert len(stats["found_by"]) == len(found) and set(stats["found_by"]) <= {"sweep", "local change", "solver"}
    # "none" comes from a CDCL member only: a sweep proves nothing
    assert all(a["member"].startswith("sweep") is False for a in stats["answers"] if a["answer"] == "no more tilings")


def test_a_sweep_member_gives_up_and_never_says_none():
    instance = load_instance(ROOT / "instances" / "lpanel-6x6-none.txt")
    placements = generate_placements(instance)
    with Child(_member, Config("sweep-1", sweep_attempts=(0, 1)), placements, "auto", "cadical195", "seqcounter") as child:
        assert child.recv()[0] == "compiled"
        kind, why, _ = child.recv()
    assert kind == "gave up" and why


def test_sweep_attempts_race_as_members_when_each_has_a_core(monkeypatch):
    instance = load_instance(ROOT / "instances" / "hard-L4-30x30-s1.txt")
    accepts = oracle_checker(instance)
    assert check_unique(instance).verdict == "multiple"
    monkeypatch.setattr(portfolio, "cores", lambda: 64)
    monkeypatch.setattr(portfolio, "_sweep_first", None)  # the parent makes no sweep of its own
    result = check_unique(instance, jobs=4)
    assert result.verdict == "multiple" and all(accepts(as_key(t)) for t in result.tilings)
    members = result.stats["portfolio"]["members"]
    assert {name: text for name, text in members.items() if name.startswith("sweep")} == {
        "sweep-1": "repairing sweep, attempt 1, 3", "sweep-2": "repairing sweep, attempt 2, 4"}
    assert set(result.stats["sweep"]["found_by"]) <= {"sweep", "local change", "solver"}
    # fewer than four members, or more members than cores: the whole sweep first, in the parent
    assert not portfolio._sweeps_race(3)
    monkeypatch.setattr(portfolio, "cores", lambda: 2)
    assert not portfolio._sweeps_race(4)


def test_jobs_values():
    assert check_jobs("3") == 3 and check_jobs(1) == 1 and check_jobs("auto") == cores()
    for bad in ("0", "-2", "x", "1.5"):
        with pytest.raises(TilesatError, match="--jobs"):
            check_jobs(bad)


def _run(*args):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run([sys.executable, "-m", "tilesat", *map(str, args)], capture_output=True, text=True, env=env)


def test_cli_jobs_answers_as_jobs_1():
    for path, code in [("lpanel-4x8-multiple.txt", 1), ("lpanel-12x12.txt", 0), ("lpanel-6x6-none.txt", 3)]:
        one = json.loads(run("check-unique", ROOT / "instances" / path, "--json").output)
        res = run("check-unique", ROOT / "instances" / path, "--json", "--jobs", "2")
        assert res.exit_code == code, res.output
        two = json.loads(res.output)
        assert two["verdict"] == one["verdict"] and two["stats"]["portfolio"]["jobs"] == 2
    res = run("pack", ROOT / "instances" / "lpanel-4x8-multiple.txt", "--json", "--jobs", "2")
    assert res.exit_code == 0 and json.loads(res.output)["optimum"] == 8
    res = _run("solve", ROOT / "instances" / "lpanel-8x8.txt", "--jobs", "x")
    assert res.returncode == 2 and res.stderr.strip() == "error: --jobs 'x': give a whole number of processes from 1, or auto"
    res = run("pack", ROOT / "instances" / "lpanel-8x8.txt", "--jobs", "2", "--method", "rc2")
    assert res.exit_code == 2 and "--jobs races the incremental method" in res.output


def _session_processes(sid: int) -> list[int]:
    """Processes still in this session (the command and every member it forked)."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[3]) == sid and fields[0] != "Z":
                    pids.append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return pids


def _start(*args):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.Popen([sys.executable, "-m", "tilesat", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)


@pytest.mark.parametrize("command", ["check-unique", "solve"])
def test_timeout_stops_every_member(command):
    t0 = time.monotonic()
    proc = _start(command, HARD, "--jobs", "2", "--timeout", "3", "--method", "sat")  # the members' race, not the sweep
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 124, err
    assert time.monotonic() - t0 < 3 + 3.0  # the limit counts from the start; a poll to notice, then kill and exit (room for a busy machine)
    assert "time limit of 3 s passed" in out
    assert _session_processes(proc.pid) == []


def test_ctrl_c_stops_every_member():
    proc = _start("check-unique", HARD, "--jobs", "2", "--method", "sat")  # the members' race, not the sweep
    give_up = time.monotonic() + 30
    while len(_session_processes(proc.pid)) < 3 and time.monotonic() < give_up:  # the command and two members
        time.sleep(0.1)
    assert len(_session_processes(proc.pid)) == 3
    time.sleep(0.5)
    t0 = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole group
    out, err = proc.communicate(timeout=30)
    assert time.monotonic() - t0 < 2.0  # within a second on a quiet machine; room for a busy one
    assert proc.returncode == 130
    assert "interrupted" in (out + err)
    assert _session_processes(proc.pid) == []


def test_open_boards_get_cadicals_sat_options_by_default():
    """The single run's default (solvers.default_options): CaDiCaL's --sat options on open
    boards only; designed puzzles, pentomino puzzles and other solvers keep their defaults."""
    for name, options in [("hard-L4-30x30-s1.txt", OPEN_BOARD_OPTIONS), ("lpanel-gen-40x40.txt", {}),
                          ("lpanel-4x8-multiple.txt", {}), ("pentomino-6x10.txt", {})]:
        instance = load_instance(ROOT / "instances" / name)
        assert default_options("cadical195", generate_placements(instance).candidates_per_cell()) == options, name
    assert default_options("glucose4", 25.0) == {} and default_options("cadical195", 25.0) == OPEN_BOARD_OPTIONS
    result = check_unique(load_instance(ROOT / "instances" / "hard-L3-30x30-s1.txt"), method="sat")
    assert result.verdict == "multiple" and result.stats["solver_options"] == {}  # L3: 10.5 candidates a cell
