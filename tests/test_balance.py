"""Units that balance themselves (issue 31): a native count's units split
where they stand when their time budget is spent, recorded in the
checkpoint, and the count interrupted and resumed at random points still
gives the oracle's exact count (raw and up to symmetry); the ledger's replay
of a checkpoint rebuilds the same units; estimates order and forecast.

Budgets are made tiny here (a split after every slice of a few nodes), so
that small instances split as record-size ones do."""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, event, given, reject, settings
from hypothesis import strategies as st

from tilesat.certify.checks import obstruction
from tilesat.certify.oracle import TooHard, board_maps, brute_force_tilings, orbit_count
from tilesat.engines import compiled, enumerator, xcc, xcc_engine
from tilesat.engines.base import Unit
from tilesat.model.instance import load_instance
from tilesat.questions import balance, count
from tilesat.questions.count import count_tilings
from tilesat.running.checkpoint import CheckpointError
from tilesat.running.control import time_limit

from tilesat.model.instance import parse_instance

from test_burnside import _images, symmetric_instances
from test_property import _args

ROOT = Path(__file__).resolve().parent.parent
P5x12 = ROOT / "instances" / "pentomino-5x12.txt"


@pytest.fixture
def tiny_budgets(monkeypatch):
    """Every run of a unit spends its budget in its first slice of ``nodes`` nodes and is split."""

    def set_slice(nodes: int) -> None:
        monkeypatch.setattr(enumerator, "SLICE", nodes)

    monkeypatch.setattr(balance, "MIN_BUDGET", 0.0)
    monkeypatch.setattr(count, "CHECKPOINT_UNITS", 1)  # a coarse plan: the splits do the cutting
    monkeypatch.setattr(balance, "SHARE", 10**12)
    set_slice(3)
    return set_slice


class Interrupt:
    """Ctrl-C after the ``after``-th poll of the count's waits (inside a unit, between its
    slices) or after the ``after``-th unit settled (between units)."""

    def __init__(self, monkeypatch, where: str, after: int):
        self.where, self.after, self.seen = where, after, 0
        if where == "poll":
            real = compiled.wait_step

            def wait_step(*a):
                self.tick()
                return real(*a)

            monkeypatch.setattr(compiled, "wait_step", wait_step)

    def tick(self) -> None:
        self.seen += 1
        if self.seen == self.after:
            raise KeyboardInterrupt

    def progress(self, tilings, done, total, **forecast) -> None:
        if self.where == "settle":
            self.tick()


@st.composite
def busy_instances(draw):
    """Boards of up to 5x6 with holes closed under a random symmetry and pieces that
    tile them many ways: search trees deep enough to split many times."""
    rows, cols = draw(st.integers(2, 5)), draw(st.integers(2, 6))
    cells = st.tuples(st.integers(0, rows - 1), st.integers(0, cols - 1))
    holes = set(draw(st.sets(cells, max_size=3)))
    for f in _images(rows, cols, draw(st.sampled_from(["none", "rotate 180", "flip rows", "all"]))):
        holes |= {f(r, c) for r, c in holes}
    if len(holes) * 2 > rows * cols:
        holes = set()
    grid = "".join("".join("#" if (r, c) in holes else "." for c in range(cols)) + "\n" for r in range(rows))
    pieces = draw(st.sampled_from(["I2", "I2, I1:0..2", "L3", "L3, I3", "L3:1.., I2:0..4", "trominoes, I2:0..2",
                                   "tetrominoes:1, I2", "L4, I2:1", "pentominoes:0..1, I2"]))
    instance = parse_instance(f"pieces: {pieces}\n{grid}")
    assume(obstruction(instance) is None)  # a board check would answer before any unit runs
    return instance


def _truth(instance):
    try:
        truth = brute_force_tilings(*_args(instance), node_limit=60_000)
    except TooHard:
        reject()
    if len(truth) > 300:
        reject()
    return truth


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(busy_instances(), symmetric_instances(max_side=5)), st.booleans(), st.integers(2, 12),
       st.lists(st.tuples(st.sampled_from(["poll", "settle"]), st.integers(1, 60)), min_size=1, max_size=3))
def test_split_units_interrupted_and_resumed_give_the_oracles_count(tmp_path_factory, monkeypatch, tiny_budgets,
                                                                    instance, up_to_symmetry, nodes, stops):
    truth = _truth(instance)
    tiny_budgets(nodes)
    ckpt = tmp_path_factory.mktemp("ckpt") / "c.json"
    results = []
    for where, after in stops:  # each run stopped at a random point, then resumed from the checkpoint
        with monkeypatch.context() as m:
            stop = Interrupt(m, where, after)
            results.append(count_tilings(instance, "native", up_to_symmetry=up_to_symmetry, checkpoint=ckpt,
                                         certificates=False, progress=stop.progress))
        if not results[-1].interrupted:
            break
        assert not results[-1].exact and results[-1].count <= len(truth)
    last = count_tilings(instance, "native", up_to_symmetry=up_to_symmetry, checkpoint=ckpt, certificates=False)
    assert last.exact and last.count == len(truth)
    if up_to_symmetry:
        assert last.up_to_symmetry == orbit_count(truth, board_maps(*_args(instance)))
    if not ckpt.exists():  # a board check answered before any unit was planned
        assert last.reason and not truth
        return
    records = [json.loads(line)["data"] for line in ckpt.read_text().splitlines()[1:]]
    assert len(records) == len({r["unit"] for r in records}) == last.units  # each unit settled once
    splits = sum("split" in r for r in records)
    event(f"splits: {'none' if not splits else 'a few' if splits < 10 else 'many'}")
    event(f"interrupted runs: {sum(r.interrupted for r in results)}")


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_count_split_on_workers_is_exact_and_resumes(tmp_path, monkeypatch, tiny_budgets, jobs):
    tiny_budgets(20_000)
    inst = load_instance(P5x12)
    ckpt = tmp_path / "c.json"
    with monkeypatch.context() as m:
        stop = Interrupt(m, "settle", 25)
        first = count_tilings(inst, up_to_symmetry=True, jobs=jobs, checkpoint=ckpt, progress=stop.progress)
    assert first.interrupted and first.splits > 0
    again = count_tilings(inst, up_to_symmetry=True, jobs=3 - jobs, checkpoint=ckpt)
    assert (again.count, again.up_to_symmetry, again.exact) == (4040, 1010, True)
    assert again.resumed == 24  # the 25th report came after the 24th unit settled


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_count_stopped_by_its_timeout_keeps_what_the_running_units_counted(tmp_path, monkeypatch, tiny_budgets,
                                                                              jobs):
    tiny_budgets(200)
    monkeypatch.setattr(balance, "MIN_BUDGET", 30.0)  # no split but the deadline's
    monkeypatch.setattr(count, "CHECKPOINT_UNITS", 4)
    inst = load_instance(P5x12)
    ckpt = tmp_path / "c.json"
    with monkeypatch.context() as m:
        # slow slices: the units handed out first (132 slices of 200 nodes or more) take 2 s or more each, and
        # the deadline falls 1 s after the first was handed out, so each is mid-way at the deadline however
        # loaded the machine (a deadline from the count's start fell as a unit finished, or could before any began)
        real_wait, real_drive = compiled.wait_step, count.drive
        m.setattr(compiled, "wait_step", lambda *a: (time.sleep(0.015), real_wait(*a))[1])

        def drive_for_a_second(*args, **kwargs):
            with time_limit(1.0):  # within the count's own limit: the earlier end holds (the workers fork inside)
                return real_drive(*args, **kwargs)

        m.setattr(count, "drive", drive_for_a_second)
        first = count_tilings(inst, jobs=jobs, checkpoint=ckpt, timeout=60.0, certificates=False)
    assert first.timed_out and not first.exact and first.count < 4040
    records = [json.loads(line)["data"] for line in ckpt.read_text().splitlines()[1:]]
    stopped = [r for r in records if "split" in r]  # the units running at the deadline, cut where they stood
    assert len(stopped) == len(records), "a unit finished before the deadline: the slices are not slow enough"
    # each running unit came back cut, or is said to be uncounted (a worker mid-slice under load may miss
    # the pool's grace); the one process of jobs=1 always comes back
    assert len(stopped) >= 1 and len(stopped) + first.uncounted == jobs
    seen = []
    again = count_tilings(inst, jobs=1, checkpoint=ckpt, certificates=False, progress=lambda n, *a, **k: seen.append(n))
    assert seen[0] == first.count  # the count said is what its records hold, the stopped units' tilings too
    assert (again.count, again.exact) == (4040, True)  # nothing lost, nothing counted twice
    assert again.resumed == len(records)


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_xcc_count_stopped_by_its_timeout_hands_back_what_it_counted_and_resumes_exactly(tmp_path, monkeypatch,
                                                                                           jobs):
    # few units (one for jobs=1), each far longer than the search's slices: the deadline falls inside them
    monkeypatch.setattr(count, "CHECKPOINT_UNITS", 1)
    monkeypatch.setattr(count, "UNITS_PER_WORKER", 1)
    inst = load_instance(ROOT / "instances" / "pentomino-6x10.txt")
    ckpt = tmp_path / "c.json"
    with monkeypatch.context() as m:  # slow slices (jobs=2's units take 0.4 s of CPU in all): mid-way at 0.5 s
        real = xcc_engine.wait_step
        m.setattr(xcc, "SLICE_SECONDS", 0.005)
        m.setattr(xcc_engine, "wait_step", lambda *a: (time.sleep(0.01), real(*a))[1])
        first = count_tilings(inst, method="xcc", jobs=jobs, checkpoint=ckpt, timeout=0.5, certificates=False)
    assert first.timed_out and not first.exact and first.count < 9356
    records = [json.loads(line)["data"] for line in ckpt.read_text().splitlines()[1:]]
    stopped = [r for r in records if "split" in r]  # units cut where they stood, their parts recorded
    assert len(stopped) + first.uncounted <= jobs
    if jobs == 1:  # its one unit runs at the deadline (jobs=2's short units may both be between two)
        assert len(stopped) == 1 and any(part["excluded"] for part in stopped[0]["split"])  # the options tried
    again = count_tilings(inst, method="xcc", jobs=1, checkpoint=ckpt, certificates=False)
    assert (again.count, again.exact) == (9356, True)  # nothing lost, nothing counted twice
    assert again.resumed == len(records)


def test_at_the_deadline_drive_settles_what_came_back_and_says_what_did_not():
    from tilesat.engines.base import Outcome
    from tilesat.running.control import TimedOut

    class Stopped(balance.Backend):
        capacity = 3

        def start(self, i, unit, budget):
            pass

        def ready(self):
            raise TimedOut(1.0)

        def stop(self, running):
            return [(min(running), Outcome([7], 0.1).as_tuple())], len(running) - 1

    ledger = balance.Ledger([Unit((p,), (0,)) for p in range(5)])
    settled, lost = [], []
    with pytest.raises(TimedOut):
        balance.drive(ledger, Stopped(), 3, lambda i, o: settled.append((i, o.counts)), budgets=False,
                      uncounted=lost.append)
    assert len(settled) == 1 and settled[0][1] == [7] and lost == [2]


def test_forecast_reports_the_time_left_and_the_expected_total(monkeypatch, tiny_budgets):
    tiny_budgets(5_000)
    seen = []

    def progress(tilings, done, total, forecast=None):
        seen.append(forecast)
        assert forecast is None or forecast["tilings"] >= tilings  # never below what is counted

    r = count_tilings(load_instance(P5x12), jobs=2, progress=progress)
    assert r.count == 4040 and r.splits > 0
    assert seen and all(f is not None and f["seconds_left"] >= 0 for f in seen)
    assert 1000 < seen[0]["tilings"] < 16000  # Knuth's estimate of 4040, before anything ran
    assert seen[-1] == {"seconds_left": 0.0, "tilings": 4040}  # the last unit settled: the count itself


# --- the ledger ------------------------------------------------------------------

def test_a_ledger_replays_its_splits_in_order():
    units = [Unit((1,)), Unit((2,), (0, 1), 2)]
    ledger = balance.Ledger(units)
    records = []
    parts = ledger.split(1, [3, 1], [((2, 5), ()), ((2,), (5,))], 1.0, 100)
    records.append({"unit": 1, "forced": [2], "counts": [3, 1], **balance.split_record(ledger, 1, 2)})
    assert list(parts) == [2, 3] and ledger.units[3] == Unit((2,), (0, 1), 2, (5,))
    ledger.finish(3, [4, 0])
    records.append({"unit": 3, "forced": [2], "excluded": [5], "counts": [4, 0]})
    again = balance.Ledger(units)
    assert again.replay(records, CheckpointError) == 2
    assert again.units == ledger.units and again.state == ledger.state and again.counts == ledger.counts
    assert again.tilings() == ledger.tilings() == 2 * 3 + 2 * 4
    assert again.pending() == [0, 2]


@pytest.mark.parametrize("bad", [
    {"unit": 9, "forced": [1], "counts": [1]},
    {"unit": 0, "forced": [2], "counts": [1]},
    {"unit": 0, "forced": [1], "counts": [1, 2]},
    {"unit": 0, "forced": [1], "counts": [-1]},
    {"unit": 0, "forced": [1], "counts": [1], "split": [{"forced": [1]}], "first": 2},
    {"unit": 0, "forced": [1], "counts": [1], "split": [], "first": 7},
])
def test_a_ledger_refuses_records_that_do_not_fit(bad):
    with pytest.raises(CheckpointError, match="damaged"):
        balance.Ledger([Unit((1,)), Unit((2,))]).replay([bad], CheckpointError)


def test_pending_units_come_biggest_first_and_budgets_follow_the_work_left():
    ledger = balance.Ledger([Unit((i,)) for i in range(4)])
    assert ledger.budget(2) is None  # no estimates, no budget
    for i, e in enumerate([(10.0, 1.0), (1e9, 5.0), None, (1e6, 2.0)]):
        ledger.set_estimate(i, e)
    assert ledger.pending() == [1, 3, 0, 2]
    assert [ledger.next_pending(), ledger.next_pending({1}), ledger.next_pending({1, 3, 0})] == [1, 3, 2]
    ledger.set_estimate(2, (0.0, 0.0))
    seconds = (1e9 + 1e6 + 10) / balance.DEFAULT_RATE / 2
    assert ledger.forecast(2) == (pytest.approx(seconds), pytest.approx(8.0))
    assert ledger.budget(2) == pytest.approx(max(balance.MIN_BUDGET, seconds / balance.SHARE))
    ledger.set_estimate(3, (1e13, 0.0))  # weeks of work left: budgets are still short
    assert ledger.budget(2) == balance.FIRST_BUDGET  # the rate not measured yet
    ledger.finish(1, [5], 1.0, 10**6)
    assert ledger.rate() == 10**6 and ledger.budget(2) == balance.MAX_BUDGET


@st.composite
def ledgers_at_work(draw):
    """A ledger's life: units of random weights and sizes (search nodes; a unit's tilings
    ``ratio`` a node, or any number when ``exact`` is false), each estimated (exactly, or
    anywhere from nothing to ten times its size), then settled in a random order, finished or
    split where it stands (its parts estimated in turn), until every unit is settled."""
    exact = draw(st.booleans())
    ratio = draw(st.integers(1, 5))
    sizes = draw(st.lists(st.integers(1, 30), min_size=1, max_size=6))
    steps = draw(st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 100), st.integers(1, 4),
                                    st.floats(0, 10)), min_size=40, max_size=40))
    return exact, ratio, sizes, [draw(st.integers(1, 3)) for _ in sizes], steps


@settings(max_examples=100, deadline=None)
@given(ledgers_at_work())
def test_the_forecast_never_claims_less_than_is_counted_and_ends_at_the_count(life):
    exact, ratio, sizes, weights, steps = life
    ledger = balance.Ledger([Unit((i,), (0,), w) for i, w in enumerate(weights)])
    size = dict(enumerate(sizes))  # each unit's nodes, its tilings `ratio` a node where exact
    truth = sum(w * ratio * n for w, n in zip(weights, sizes))
    rng = itertools.cycle(steps)

    def estimate(i, nodes):
        noise = 1.0 if exact else next(rng)[3]
        ledger.set_estimate(i, (nodes * noise, ratio * nodes * noise))

    for i, n in size.items():
        estimate(i, n)
    counted = 0
    while not ledger.complete:
        pick, cut, parts, _ = next(rng)
        i = ledger.pending()[pick % len(ledger.pending())]
        n, weight = size[i], ledger.units[i].weight
        done = max(1, cut * n // 100)  # where it stands: a share of its nodes
        if done < n:  # split: the rest in up to `parts` parts
            shares = [(n - done) // parts + (k < (n - done) % parts) for k in range(parts)]
            shares = [m for m in shares if m]
            first = len(ledger)
            ledger.split(i, [ratio * done], [((i, first + k), ()) for k in range(len(shares))], 1.0, done)
            for k, m in enumerate(shares):
                size[first + k] = m
                estimate(first + k, m)
        else:
            ledger.finish(i, [ratio * n], 1.0, n)
        counted += weight * ratio * done
        seconds, total = ledger.forecast(2)
        assert ledger.tilings() == counted and total >= counted and seconds >= 0
        if exact:  # the estimates true and the tilings a node the same everywhere: so is the forecast
            assert total == pytest.approx(truth)
    assert counted == truth and ledger.forecast(2) == (0.0, truth)


def test_a_resumed_ledger_keeps_the_measured_tilings_a_node():
    units = [Unit((1,)), Unit((2,))]
    ledger = balance.Ledger(units)
    ledger.set_estimate(1, (1e9, 0.0))  # its random paths found no tiling
    ledger.finish(0, [3000], 2.0, 10**6)  # but the count finds 3 tilings a thousand nodes
    again = balance.Ledger(units)
    again.replay([{"unit": 0, "forced": [1], "counts": [3000], "seconds": 2.0, "nodes": 10**6}], CheckpointError)
    again.set_estimate(1, (1e9, 0.0))
    assert again.measured == ledger.measured == [3000, 10**6]
    assert again.forecast(1)[1] == ledger.forecast(1)[1] == pytest.approx(3000 + 3e6 * 1e6 / 2e6)
    assert again.rate() == balance.DEFAULT_RATE  # the rate is this run's own
