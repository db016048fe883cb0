"""Optional cells ('+': covered at most once) and colours (a piece cell of colour
p only on board cells whose colour is paired with p; the default colour fits
anything) in tilesat's own model, on every grid: the brute-force oracle, SAT
with blocking clauses, a model counter and the compiled exact cover count the
same; the checker accepts an optional cell left empty and refuses a colour
that does not pair; the text format says them and reads back the same."""

import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tilesat import Board, Instance, generate_placements
from tilesat.certify.oracle import Marks, TooHard, brute_force_tilings
from tilesat.certify.verify import problems
from tilesat.errors import TilesatError
from tilesat.model.instance import PieceRule, format_instance, parse_instance
from tilesat.model.pieces import Piece, builtin_piece, grid_piece_set, piece_set
from tilesat.model.symmetry import symmetry_group
from tilesat.model.tiling import Tile, Tiling
from tilesat.questions.count import count_tilings, iter_tilings_by

INF = float("inf")
#: per grid: small pieces, and a two-cell and a three-cell piece to colour
POOL = {"square": lambda: list(piece_set("trominoes")) + [builtin_piece("I2")],
        "triangle": lambda: list(grid_piece_set("triangle", "diamond")) + list(grid_piece_set("triangle", "triamond")),
        "hex": lambda: list(grid_piece_set("hex", "dihex")) + list(grid_piece_set("hex", "monohex")),
        "cube": lambda: list(grid_piece_set("cube", "dicube")) + list(grid_piece_set("cube", "monocube"))}
TWO = {"square": "I2", "triangle": "diamond", "hex": "dihex", "cube": "dicube"}
CELL_KINDS = [(True, False, 0), (True, False, 0), (True, True, 0), (True, False, 1), (True, True, 1),
              (True, False, 2), (False, False, 0)]  # (open, optional, colour)


def _two_cells(grid):
    return builtin_piece("I2") if grid == "square" else grid_piece_set(grid, TWO[grid])[0]


@st.composite
def instances(draw, grid):
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 3))) if grid == "cube" else \
        (draw(st.integers(1, 3)), draw(st.integers(2, 4)))
    size = int(np.prod(shape))
    kinds = draw(st.lists(st.sampled_from(CELL_KINDS), min_size=size, max_size=size))
    open_mask = np.array([k[0] for k in kinds]).reshape(shape)
    assume(open_mask.sum() >= 2)
    optional = np.array([k[1] for k in kinds]).reshape(shape)
    colour = np.array([k[2] for k in kinds], np.uint8).reshape(shape)
    two = _two_cells(grid)
    paint = draw(st.sampled_from([(1, 0), (1, 2), (2, 2), (0, 1)]))
    coloured = Piece("C", two.cells, grid, paint)
    pool = POOL[grid]()
    chosen = draw(st.lists(st.sampled_from(pool), min_size=0, max_size=2, unique_by=lambda p: p.name))
    rules = [PieceRule(coloured, "free", *draw(st.sampled_from([(0, INF), (0, 1), (1, 2)])))]
    for p in chosen:
        lo, hi = draw(st.sampled_from([(0, INF), (0, INF), (0, 1), (1, 1), (0, 2)]))
        rules.append(PieceRule(p, draw(st.sampled_from(["free", "fixed"])), lo, hi))
    pairs = draw(st.sampled_from([None, frozenset(), frozenset({(1, 2)}), frozenset({(1, 1), (2, 1)})]))
    return Instance(Board(open_mask, "none", grid, optional, colour), tuple(rules), {"C": coloured}, pairs=pairs)


def oracle_tilings(inst):
    board = inst.board
    pieces = [(r.name, list(r.piece.cells), r.orient, r.min, r.max, r.piece.colours) for r in inst.rules]
    optional = set(board.cells(board.optional_cells))
    colour = {board.cell(i): board.colour_of(i) for i in board.open_cells.tolist()}
    cells = ["".join("." if x else "#" for x in row) for row in board.open] if board.is_square \
        else board.cells(board.open_cells)
    return brute_force_tilings(cells, "none", pieces, node_limit=20_000, lattice=board.grid,
                               marks=Marks(frozenset(optional), colour, inst.pairs))


def _key(tiling):
    return frozenset((t.piece, frozenset(t.cells), frozenset(zip(t.cells, t.colours))) if t.colours
                     else (t.piece, frozenset(t.cells)) for t in tiling)


def _check(inst):
    try:
        truth = oracle_tilings(inst)
    except TooHard:
        assume(False)
    by_blocking = count_tilings(inst, "blocking", up_to_symmetry=True, certificates=False)
    by_xcc = count_tilings(inst, "xcc", up_to_symmetry=True, certificates=False)
    assert by_blocking.count == by_xcc.count == len(truth)
    assert by_blocking.up_to_symmetry == by_xcc.up_to_symmetry
    for method in ("blocking", "xcc"):
        listed = set()
        for tiling in iter_tilings_by(inst, method, certificates=False):
            assert not problems(inst, tiling)
            listed.add(_key(tiling))
        assert listed == truth, method
    # each symmetry keeps optional and coloured cells, and maps every tiling onto a tiling
    board = inst.board
    placements = generate_placements(inst)
    for sym in symmetry_group(placements):
        assert board.same_cells(sym.cells)
        for tiling in iter_tilings_by(inst, "xcc", certificates=False):
            image = Tiling(tuple(Tile(t.piece, tuple(sorted(board.cell(sym.cells[board.index(c)]) for c in t.cells)))
                                 if not t.colours else _moved(board, sym, t) for t in tiling), board.grid)
            assert not problems(inst, image)


def _moved(board, sym, tile):
    pairs = sorted((board.cell(sym.cells[board.index(c)]), k) for c, k in zip(tile.cells, tile.colours))
    return Tile(tile.piece, tuple(c for c, _ in pairs), tuple(k for _, k in pairs))


@pytest.mark.parametrize("grid", ["square", "triangle", "hex", "cube"])
def test_optional_cells_and_colours_counted_alike(grid):
    # fewer on the cube: its boards are the slowest to list (the suite's time is counted)
    @settings(max_examples=10 if grid == "cube" else 20, deadline=None, suppress_health_check=list(HealthCheck),
              derandomize=True)
    @given(instances(grid))
    def run(inst):
        _check(inst)

    run()


def test_a_model_counter_counts_the_same():
    inst = parse_instance("colours: A:A\nshape: D #A\npieces: D, I1:0..1\n..+A\nA.+a\n")
    want = len(oracle_tilings(inst))
    assert want > 0
    assert count_tilings(inst, "ganak", certificates=False).count == want
    assert count_tilings(inst, "xcc", certificates=False).count == want


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(["square", "triangle", "hex", "cube"]).flatmap(instances))
def test_the_text_format_reads_back_the_same(inst):
    text = format_instance(inst)
    back = parse_instance(text)
    assert _cells(back.board) == _cells(inst.board), text  # the text drops blocked margins on some grids
    assert back.pairs == inst.pairs
    assert [(r.piece.cells, r.piece.colours) for r in back.rules] == [(r.piece.cells, r.piece.colours) for r in inst.rules]
    assert format_instance(back) == text


def _cells(board):
    """Open cell (from the first open cell) -> (optional, colour)."""
    cells = board.cells(board.open_cells)
    low = cells[0]
    optional = set(board.optional_cells.tolist())
    return {tuple(a - b for a, b in zip(c, low)): (i in optional, board.colour_of(i))
            for c, i in zip(cells, board.open_cells.tolist())}


BOARD = "colours: A:A, B:B\nshape: D #A\nshape: E AB\npieces: D, E:0..1\n..+A\nAB+.\n"


def test_the_checker_accepts_an_empty_optional_cell_and_refuses_a_colour_mismatch():
    inst = parse_instance(BOARD)
    d, e = inst.rule("D").piece, inst.rule("E").piece
    ok = Tiling((Tile("D", ((0, 0), (0, 1)), (0, 1)), Tile("D", ((0, 3), (1, 3)), (1, 0)),
                 Tile("D", ((1, 0), (1, 1)), (1, 0))))
    assert problems(inst, ok) == []  # (0, 2) and (1, 2) may stay empty
    missing = Tiling(ok.tiles[:2])
    assert any("(1, 0) is covered 0 times" in p for p in problems(inst, missing))
    wrong_way = Tiling((Tile("D", ((0, 0), (0, 1)), (0, 1)), Tile("D", ((0, 3), (1, 3)), (0, 1)),
                        Tile("D", ((1, 0), (1, 1)), (1, 0))))  # an A on (1, 3): no pair with the default? it fits
    assert problems(inst, wrong_way) == []
    mismatch = Tiling((Tile("D", ((0, 0), (0, 1)), (0, 1)), Tile("D", ((0, 3), (1, 3)), (1, 0)),
                       Tile("E", ((1, 0), (1, 1)), (2, 1))))  # B on A and A on B
    assert any("do not pair" in p for p in problems(inst, mismatch))
    not_its_colours = Tiling((Tile("D", ((0, 0), (0, 1)), (2, 0)), Tile("D", ((0, 3), (1, 3)), (1, 0)),
                              Tile("D", ((1, 0), (1, 1)), (1, 0))))
    assert any("with its colours" in p for p in problems(inst, not_its_colours))
    assert d.colours == (0, 1) and e.colours == (1, 2)


def test_engines_that_cover_every_cell_refuse_in_one_line():
    inst = parse_instance(BOARD)
    for method in ("dlx", "native", "frontier", "pfaffian"):
        with pytest.raises(TilesatError) as e:
            count_tilings(inst, method, certificates=False)
        assert "\n" not in str(e.value) and ("may stay empty" in str(e.value) or "colours" in str(e.value)
                                            or "domino" in str(e.value))
    assert count_tilings(inst, "auto", certificates=False).count == len(oracle_tilings(inst))


def test_bad_colour_input_is_one_clear_line():
    for text, words in (("colours: A-B\npieces: I2\n..\n", "bad colour pair"),
                        ("grid: triangle\npieces: diamond\n^v\n", None)):
        try:
            parse_instance(text)
        except TilesatError as e:
            assert words is not None and words in str(e) and "\n" not in str(e)
        else:
            assert words is None


def test_the_command_line_counts_and_draws_them(tmp_path):
    path = tmp_path / "coloured.txt"
    path.write_text(BOARD)
    want = len(oracle_tilings(parse_instance(BOARD)))

    def tilesat(*args):
        return subprocess.run([sys.executable, "-m", "tilesat", *args], capture_output=True, cwd=tmp_path)

    run = tilesat("count", str(path), "--json")
    assert run.returncode == 0 and run.stderr == b""
    assert json.loads(run.stdout)["count"] == want
    run = tilesat("count", str(path))
    assert run.returncode == 0 and run.stdout.startswith(f"count: {want} tilings".encode())
    run = tilesat("solve", str(path), "--json")
    assert run.returncode == 0
    tiling = Tiling.from_json(json.loads(run.stdout)["tilings"][0])
    assert problems(parse_instance(BOARD), tiling) == []
    run = tilesat("solve", str(path), "--svg", str(tmp_path / "t.svg"))
    assert run.returncode == 0 and (tmp_path / "t.svg").read_bytes().startswith(b"<")


def test_a_unique_coloured_board_is_proved_and_not_graded(tmp_path):
    """One tiling (the domino turned so that its A cell lies on the A cell, the '+' cell
    empty): check-unique says so without grading (deduction covers every cell), and its
    proof, a coloured tile in proof.json, is verified."""
    path = tmp_path / "one.txt"
    path.write_text("colours: A:A\nshape: D #A\npieces: D\nAB+\n")

    def tilesat(*args):
        return subprocess.run([sys.executable, "-m", "tilesat", *args], capture_output=True, cwd=tmp_path)

    run = tilesat("check-unique", str(path), "--json", "--proof", str(tmp_path / "proof"))
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["verdict"] == "unique" and "not graded" in data["stats"]["grade"]
    assert data["tilings"] == [[{"piece": "D", "cells": [[0, 0], [0, 1]], "colours": [1, 0]}]]
    run = tilesat("verify-proof", str(tmp_path / "proof"))
    assert run.returncode == 0 and run.stdout.startswith(b"proof verified")


def test_a_first_row_of_lowercase_letters_is_written_after_a_grid_header():
    """A first row such as 'aa' reads as a word (a header that lost its ':'); after a
    'grid: square' header it is a row, so the writer puts one there: the same board
    (shape, wrap, cells) and the same count come back."""
    inst = parse_instance("grid: square\nshape: C AA\npieces: C\nwrap: both\naa\nAA\nAA\n")
    text = format_instance(inst)
    assert text.startswith("grid: square\n") and text.endswith("aa\nAA\nAA\n")
    back = parse_instance(text)
    assert back.board.open.shape == inst.board.open.shape and back.board.wrap == "both"
    assert _cells(back.board) == _cells(inst.board)
    assert format_instance(back) == text
    assert count_tilings(back, "blocking").count == count_tilings(inst, "blocking").count == 6
    with pytest.raises(TilesatError, match="follows a 'grid: square' header"):
        parse_instance("shape: C AA\npieces: C\naa\n")
