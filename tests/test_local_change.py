"""The local change (tilesat.engines.local_change): a tiling mended to its piece
counts is one the oracle accepts (the local change's second tiling, counts
included: tests/test_sweep.py);
mending leaves a tiling whose counts hold as it was; check-unique by sweep
agrees with SAT and the oracle on boards with piece counts; auto sweeps big
boards whose counts can fill them, and only those."""

import sys
import time
from pathlib import Path

import pytest
from hypothesis import event, given, settings, strategies as st
from test_property import as_key, oracle, oracle_checker
from test_search_methods import check_unique_agrees_with_the_oracle
from test_sweep import open_boards

from tilesat import Instance, PieceRule, check_unique, parse_pieces
from tilesat.engines.local_change import mend_counts
from tilesat.engines.sweep import SweepStats, counts_hold
from tilesat.model.board import Board
from tilesat.model.instance import INF
from tilesat.model.placements import generate_placements
from tilesat.model.tiling import Tiling
from tilesat.questions.solve import choose_search_method
from tilesat.running.control import TimedOut, time_limit

@st.composite
def counted_boards(draw):
    """test_sweep's small open boards, 6 cells wide at most (the oracle's reach), with piece counts."""
    return draw(open_boards(counts=True, side=6))


def _index(placements):
    """Each placement's tile (as the oracle writes it) -> its index."""
    return {as_key(Tiling.from_placements(placements, [p])): p for p in range(len(placements))}


def _chosen(placements, key):
    index = _index(placements)
    return sorted(index[frozenset([tile])] for tile in key)


@settings(max_examples=150, deadline=None)
@given(counted_boards(), st.integers(0, 39))
def test_a_mended_tiling_is_one_the_oracle_accepts_counts_included(instance, pick):
    free = Instance(instance.board, tuple(PieceRule(r.piece, r.orient) for r in instance.rules))
    tilings = sorted(oracle(free), key=sorted)  # tilings that ignore the counts, as a sweep's may
    if not tilings:
        return
    placements = generate_placements(instance)
    start = _chosen(placements, tilings[pick % len(tilings)])
    stats = SweepStats()
    mended = mend_counts(placements, start, stats=stats)
    if counts_hold(placements, start):
        event("counts held")
        assert mended == start and not stats.mend  # nothing to mend: the tiling as it was
        return
    assert set(stats.mend) == {"boxes", "mended", "conflicts", "seconds"}
    event("mended" if mended is not None else "not mended")
    if mended is None:
        return  # not mended: allowed, it proves nothing
    key = as_key(Tiling.from_placements(placements, mended))
    assert oracle_checker(instance)(key)


def test_mending_trades_a_piece_used_too_often_for_one_missing():
    # a 6x6 board tiled by dominoes alone; the rules ask for 3 to 5 squares and at most
    # 10 dominoes: boxes are tiled again until both counts hold
    instance = Instance(Board.rectangle(6, 6), (PieceRule(parse_pieces("I2")[0].piece, "free", 0, 10),
                                                PieceRule(parse_pieces("O4")[0].piece, "free", 3, 5)))
    placements = generate_placements(instance)
    dominoes = [frozenset([("I2", frozenset({(r, c), (r, c + 1)}))]) for r in range(6) for c in (0, 2, 4)]
    index = _index(placements)
    start = sorted(index[d] for d in dominoes)
    assert not counts_hold(placements, start)
    stats = SweepStats()
    mended = mend_counts(placements, start, stats=stats)
    assert mended is not None and counts_hold(placements, mended) and stats.mend["mended"] >= 1
    assert oracle_checker(instance)(as_key(Tiling.from_placements(placements, mended)))


def test_mending_stops_at_the_time_limit(monkeypatch):
    # a 60x60 board of dominoes where the rules ask for 400 squares: many boxes to mend,
    # each made slower than the limit's share so that the limit always comes first
    from tilesat.engines import local_change

    retile = local_change.Regions.retile

    def slow_retile(self, *args, **kwargs):
        time.sleep(0.02)
        return retile(self, *args, **kwargs)

    monkeypatch.setattr(local_change.Regions, "retile", slow_retile)
    instance = Instance(Board.rectangle(60, 60), (PieceRule(parse_pieces("I2")[0].piece, "free"),
                                                  PieceRule(parse_pieces("O4")[0].piece, "free", 400, INF)))
    placements = generate_placements(instance)
    by_cells = {tuple(placements.cells_of(p).tolist()): p for p in range(len(placements))}
    start = sorted(by_cells[(r * 60 + c, r * 60 + c + 1)] for r in range(60) for c in range(0, 60, 2))
    t0 = time.perf_counter()
    with pytest.raises(TimedOut):
        with time_limit(0.1):
            mend_counts(placements, start)
    assert time.perf_counter() - t0 < 1.5


@settings(max_examples=60, deadline=None)
@given(counted_boards())
def test_check_unique_by_sweep_agrees_with_sat_and_the_oracle_with_counts(instance):
    check_unique_agrees_with_the_oracle(instance, ("sweep", "sat"))


def test_auto_sweeps_big_boards_whose_counts_can_fill_them():
    board = Board.rectangle(30, 30)
    pieces = parse_pieces("L4,T4")
    loose = Instance(board, tuple(PieceRule(r.piece, r.orient, 1, 200) for r in pieces))
    method, why = choose_search_method(loose)
    assert method == "sweep" and "mended" in why
    short = Instance(board, tuple(PieceRule(r.piece, r.orient, 0, 100) for r in pieces))  # 800 of 900 cells
    assert choose_search_method(short)[0] == "sat"


def test_the_portfolio_mends_the_counts_of_its_sweep_too():
    # L4 at most 30 times on an open 20x20 board: the sweep's tiling uses more (L4 is the first piece)
    pieces = parse_pieces("L4,T4")
    instance = Instance(Board.rectangle(20, 20), (PieceRule(pieces[0].piece, "free", 0, 30), pieces[1]))
    result = check_unique(instance, jobs=2)
    assert result.verdict == "multiple" and result.stats["sweep"]["found_by"] == ["sweep", "local change"]
    assert result.stats["sweep"]["mend_counts"]["mended"] > 0
    accepts = oracle_checker(instance)
    assert all(accepts(as_key(t)) for t in result.tilings)


@pytest.mark.slow
def test_pentominoes_with_loose_counts_on_a_40x40_packing():
    # a tuning board of scripts/hard_families.py's pentominoes-counts-40: the sweep's tiling
    # uses F5 81 times (48 allowed), I5 23 times (16) and no X5; mended, then a second tiling
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
    from hard_families import FAMILIES

    instance, _ = FAMILIES["pentominoes-counts-40"].board(101)
    result = check_unique(instance, timeout=120)
    assert result.verdict == "multiple" and result.stats["method"] == "sweep"
    assert result.stats["sweep"]["found_by"] == ["sweep", "local change"]
    assert result.stats["sweep"]["mend_counts"]["mended"] > 0
    accepts = oracle_checker(instance)
    assert all(accepts(as_key(t)) for t in result.tilings)
    assert as_key(result.tilings[0]) != as_key(result.tilings[1])
