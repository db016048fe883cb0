"""Puzzle generation on the triangle, hex and cube grids: the boards are
unique by check-unique and by the brute-force oracle (which turns pieces with
its own geometry), the instance text reads back to the same puzzle, and the
CLI's --grid / --size say what they need in one line."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from tilesat import parse_pieces
from tilesat.cli import app
from tilesat.making.generate import generate_puzzle
from tilesat.model.instance import format_instance, parse_instance
from tilesat.certify.oracle import brute_force_tilings
from tilesat.questions.solve import check_unique
from tilesat.certify.verify import problems

runner = CliRunner()


def oracle_count(instance) -> int:
    board = instance.board
    pieces = [(r.name, r.piece.cells, r.orient, r.min, r.max) for r in instance.rules]
    return len(brute_force_tilings(board.cells(board.open_cells), "none", pieces, cap=1, node_limit=200_000,
                                   lattice=board.grid))


@pytest.mark.parametrize("grid,pieces,size,seed", [
    ("triangle", "diamond, triamond", (6, 8), 1), ("triangle", "tetriamonds", (5, 8), 2),
    ("hex", "trihexes", (5, 6), 1), ("hex", "dihex, trihexes", (4, 5), 3),
    ("cube", "tricubes", (3, 3, 3), 1), ("cube", "dicube, tricubes", (2, 3, 4), 2),
])
def test_generated_boards_on_other_grids_are_unique(grid, pieces, size, seed):
    layers, rows, cols = size if grid == "cube" else (1, *size)
    puzzle = generate_puzzle(rows, cols, parse_pieces(pieces, grid=grid), seed=seed, grid=grid, layers=layers)
    instance = puzzle.instance
    assert instance.board.grid == grid and instance.board.shape == size
    result = check_unique(instance)
    assert result.verdict == "unique"
    assert not problems(instance, result.tilings[0])
    assert oracle_count(instance) == 1  # independent of tilesat's placements
    again = parse_instance(format_instance(instance))
    assert again.board.grid == grid and again.board.area == instance.board.area
    assert check_unique(again).verdict == "unique"
    # the same seed, the same board
    other = generate_puzzle(rows, cols, parse_pieces(pieces, grid=grid), seed=seed, grid=grid, layers=layers)
    assert (other.instance.board.open == instance.board.open).all()


def test_generate_cli_on_the_hex_and_cube_grids(tmp_path):
    out = tmp_path / "hex.txt"
    res = runner.invoke(app, ["generate", "--grid", "hex", "--size", "5x6", "--pieces", "trihexes",
                              "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout.splitlines()[0])
    assert data["grid"] == "hex" and data["size"] == "5x6"
    assert "grid: hex" in out.read_text() and "--grid hex" in out.read_text()
    res = runner.invoke(app, ["check-unique", str(out)])
    assert res.exit_code == 0 and "unique" in res.stdout
    res = runner.invoke(app, ["generate", "--grid", "cube", "--size", "2x3x3", "--pieces", "tricubes"])
    assert res.exit_code == 0 and "grid: cube" in res.stdout


@pytest.mark.parametrize("argv,message", [
    (["--grid", "cube", "--size", "3x3"], "LAYERSxROWSxCOLS"),
    (["--grid", "hex", "--size", "2x3x3"], "ROWSxCOLS"),
    (["--grid", "octagon", "--size", "3x3"], "unknown grid"),
])
def test_generate_cli_refuses_bad_grid_sizes_in_one_line(argv, message):
    res = runner.invoke(app, ["generate", *argv])
    assert res.exit_code == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]
