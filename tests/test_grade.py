"""The difficulty grade (tilesat.making.grade): deduction is sound, easy means
propagation alone tiles the board, and check-unique shows the grade."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import event, given, settings, strategies as st
from typer.testing import CliRunner

from tilesat import load_instance, parse_pieces
from tilesat.model.board import Board
from tilesat.cli import app
from tilesat.making.grade import Deducer, grade
from tilesat.model.instance import Instance, parse_instance
from tilesat.certify.oracle import TooHard, brute_force_tilings
from tilesat.model.placements import generate_placements
from tilesat.questions.solve import check_unique
from tilesat.certify.verify import verify_tiling

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()

# A 3x21 board the 12 pentominoes (once each) tile in exactly one way, that
# probing does not settle (made by generate --size 3x21 --pieces pentominoes:1 --seed 1).
HARD = "pieces: pentominoes:1\n...........#.........\n...............#.....\n.....#...............\n"


def _oracle(instance: Instance, cap: int = 2):
    rules = [(r.name, r.piece.cells, r.orient, r.min, r.max) for r in instance.rules]
    return brute_force_tilings(instance.board.rows_text(), instance.board.wrap, rules, cap=cap)


def _as_set(tiling) -> frozenset:
    return frozenset((t.piece, frozenset(t.cells)) for t in tiling.tiles)


def test_an_easy_board_is_tiled_by_propagation_alone():
    instance = load_instance(ROOT / "instances" / "lpanel-6x6.txt")
    g = grade(instance)
    assert (g.grade, g.rounds, g.ruled_out, g.cells_left) == ("easy", 1, 0, 0)
    verify_tiling(instance, g.tiling)  # the independent checker
    assert g.forced == g.tiles == len(g.tiling)
    assert _as_set(g.tiling) == _as_set(check_unique(instance).tilings[0])


def test_a_medium_board_needs_probing_and_ends_in_the_unique_tiling():
    instance = load_instance(ROOT / "instances" / "lpanel-12x12.txt")
    g = grade(instance)
    assert g.grade == "medium" and g.rounds >= 2 and g.ruled_out > 0 and g.forced < g.tiles
    assert Deducer(generate_placements(instance)).run(level=1).solved is False  # propagation alone stops short
    verify_tiling(instance, g.tiling)
    assert _as_set(g.tiling) == _as_set(check_unique(instance).tilings[0])


def test_a_hard_board_is_left_to_guessing():
    instance = parse_instance(HARD)
    assert check_unique(instance).verdict == "unique"
    g = grade(instance)
    assert g.grade == "hard" and g.tiling is None and g.cells_left > 0 and isinstance(g.guesses, int)


def test_explained_steps_name_a_cell_and_the_placement_that_covers_it_in_the_tiling():
    instance = load_instance(ROOT / "instances" / "lpanel-12x12.txt")
    g = grade(instance, explain=5)
    assert len(g.steps) == 5
    owner = {cell: tile for tile in g.tiling.tiles for cell in tile.cells}
    for step in g.steps:
        head, placed = step.split(" can only be covered by L4 on ")
        cell = tuple(int(x) for x in head.removeprefix("cell (").rstrip(")").split(","))
        cells = {tuple(int(x) for x in part.strip("()").split(",")) for part in placed.split()}
        assert cell in cells and set(owner[cell].cells) == cells


@settings(max_examples=120)
@given(rows=st.integers(2, 5), cols=st.integers(2, 6), seed=st.integers(0, 10**6),
       pieces=st.sampled_from(["L4", "L3", "I2", "L3, I3", "I2, O4", "pentominoes:0..1", "L3:1, I2"]),
       density=st.floats(0.5, 1.0), wrap=st.sampled_from(["none", "none", "rows", "both"]))
def test_deduction_is_sound_on_random_boards(rows, cols, seed, pieces, density, wrap):
    rng = np.random.default_rng(seed)
    grid = rng.random((rows, cols)) < density
    if not grid.any():
        grid[0, 0] = True
    instance = Instance(Board(grid, wrap), parse_pieces(pieces))
    try:
        truth = _oracle(instance)
    except TooHard:
        return
    placements = generate_placements(instance)
    if not truth:
        return  # deduction may or may not find the contradiction; nothing to compare
    state = Deducer(placements).run(level=2)  # never a Contradiction: a tiling exists
    for p in state.chosen_set:  # every deduced placement is in every tiling
        tile = (placements.piece_of(p).name, frozenset(placements.coords_of(p)))
        assert all(tile in t for t in truth)
    if state.solved:  # settled by deduction: the tiling is unique, and it is this one
        assert len(truth) == 1 and _as_set(state.tiling()) == next(iter(truth))
    g = grade(instance)
    event(f"{min(len(truth), 2)} tilings, {g.grade}")
    assert g.grade in ("easy", "medium", "hard")
    assert (g.grade == "easy") == (g.rounds == 1 and g.tiling is not None)
    if len(truth) > 1:
        assert g.grade == "hard"


def _run(*argv):
    result = runner.invoke(app, [str(a) for a in argv])
    return result.exit_code, result.stdout


def test_check_unique_shows_the_grade_and_explains():
    path = ROOT / "instances" / "lpanel-12x12.txt"
    status, out = _run("check-unique", path, "--json")
    data = json.loads(out)
    assert status == 0 and data["grade"]["grade"] == "medium" and "steps" not in data["grade"]
    status, out = _run("check-unique", path, "--json", "--explain")
    assert json.loads(out)["grade"]["steps"][0].startswith("cell (")
    status, out = _run("check-unique", path, "--explain")
    assert "grade: medium (2 deduction rounds)" in out and "\n  1. cell (" in out
    status, out = _run("check-unique", path, "--json", "--no-grade")
    assert "grade" not in json.loads(out)
    status, out = _run("check-unique", ROOT / "instances" / "lpanel-4x8-multiple.txt", "--json")
    assert status == 1 and "grade" not in json.loads(out)  # only a unique board is graded


def test_a_board_whose_cells_may_stay_empty_is_refused_not_graded_none():
    """Deduction covers every open cell: on a '+' board it would say 'no tiling'
    of a unique board, so grade() refuses it in one line (its callers say so)."""
    from tilesat import check_unique
    from tilesat.errors import TilesatError
    from tilesat.model.instance import parse_instance

    instance = parse_instance("pieces: I2\n..+\n")
    assert check_unique(instance).verdict == "unique"
    with pytest.raises(TilesatError, match="not graded: .*may stay empty"):
        grade(instance)
