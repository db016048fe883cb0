"""Units that balance themselves (issue 31): a native count's units split
where they stand when their time budget is spent, recorded in the
checkpoint, and the count interrupted and resumed at random points still
gives the oracle's exact count (raw and up to symmetry); the ledger's replay
of a checkpoint rebuilds the same units; estimates order and forecast.

Budgets are made tiny here (a split after every slice of a few nodes), so
that small instances split as record-size ones do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, event, given, reject, settings
from hypothesis import strategies as st

from tilesat.certify.checks import obstruction
from tilesat.certify.oracle import TooHard, board_maps, brute_force_tilings, orbit_count
from tilesat.engines import compiled, enumerator
from tilesat.engines.base import Unit
from tilesat.model.instance import load_instance
from tilesat.questions import balance, count
from tilesat.questions.count import count_tilings
from tilesat.running.checkpoint import CheckpointError

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


def test_forecast_reports_the_time_left_and_the_expected_total(monkeypatch, tiny_budgets):
    tiny_budgets(5_000)
    seen = []
    r = count_tilings(load_instance(P5x12), jobs=2, progress=lambda t, d, n, **f: seen.append(f.get("forecast")))
    assert r.count == 4040 and r.splits > 0
    forecasts = [f for f in seen if f]
    assert forecasts and all(f["seconds_left"] >= 0 for f in forecasts)
    assert 1000 < forecasts[0]["tilings"] < 16000  # Knuth's estimate of 4040, before anything ran


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
