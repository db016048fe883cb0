"""Property tests on every grid against the brute-force oracle (which turns
pieces with its own geometry): random small boards and piece lists."""

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tilesat import Board, Instance, generate_placements
from tilesat.questions.count import count_tilings, iter_tilings_by
from tilesat.model.instance import PieceRule
from tilesat.certify.oracle import TooHard, board_maps, brute_force_max_packing, brute_force_tilings, orbit_count
from tilesat.questions.pack import pack
from tilesat.model.pieces import grid_piece_set
from tilesat.certify.verify import problems

SETS = {"square": ["trominoes", "tetrominoes-one-sided"],
        "triangle": ["moniamond", "diamond", "triamond", "tetriamonds", "tetriamonds-one-sided"],
        "hex": ["monohex", "dihex", "trihexes"], "cube": ["monocube", "dicube", "tricubes"]}
ORIENTS = {"square": ["free", "one-sided", "fixed"], "triangle": ["free", "one-sided", "fixed"],
           "hex": ["free", "one-sided", "fixed"], "cube": ["free", "mirror", "fixed"]}
INF = float("inf")


@st.composite
def instances(draw, grid):
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 3))) if grid == "cube" else \
        (draw(st.integers(1, 4)), draw(st.integers(2, 5)))
    size = int(np.prod(shape))
    cells = st.sampled_from([True, True, True, False])  # mostly open: boards with tilings
    mask = np.array(draw(st.lists(cells, min_size=size, max_size=size)), dtype=bool).reshape(shape)
    assume(mask.sum() >= 2)
    pool = [p for name in SETS[grid] for p in grid_piece_set(grid, name)] if grid != "square" else []
    if grid == "square":
        from tilesat.model.pieces import piece_set
        pool = [p for name in SETS[grid] for p in piece_set(name)]
    chosen = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=3, unique_by=lambda p: p.name))
    rules = []
    for p in chosen:
        orient = draw(st.sampled_from(ORIENTS[grid]))
        lo, hi = draw(st.sampled_from([(0, INF), (0, INF), (1, INF), (0, 1), (1, 1), (0, 2)]))
        rules.append(PieceRule(p, orient, lo, hi))
    return Instance(Board(mask, "none", grid), tuple(rules))


def _args(inst):
    pieces = [(r.name, r.piece.cells, r.orient, r.min, r.max) for r in inst.rules]
    board = inst.board
    if board.is_square:
        return board.rows_text(), "none", pieces, "square"
    return board.cells(board.open_cells), "none", pieces, board.grid


def _check(inst):
    grid_rows, wrap, pieces, lattice = _args(inst)
    try:
        truth = brute_force_tilings(grid_rows, wrap, pieces, node_limit=20_000, lattice=lattice)
    except TooHard:
        assume(False)
    result = count_tilings(inst, "blocking", up_to_symmetry=True, certificates=False)
    assert result.count == len(truth)
    if all(r.max in (1, INF) and r.min in (0, r.max) for r in inst.rules):  # exact cover, another method
        assert count_tilings(inst, "dlx", certificates=False).count == len(truth)
    assert result.up_to_symmetry == orbit_count(truth, board_maps(grid_rows, wrap, pieces, lattice=lattice))
    # the compiled exact cover takes every piece count on every grid
    by_xcc = count_tilings(inst, "xcc", up_to_symmetry=True, certificates=False)
    assert (by_xcc.count, by_xcc.up_to_symmetry) == (result.count, result.up_to_symmetry)
    for method in ("blocking", "xcc"):
        listed = set()
        for tiling in iter_tilings_by(inst, method, certificates=False):
            assert not problems(inst, tiling)
            listed.add(frozenset((t.piece, frozenset(t.cells)) for t in tiling))
        assert listed == truth, method
    covering, _ = brute_force_tilings(grid_rows, wrap, pieces, cap="check", lattice=lattice)
    assert len(generate_placements(inst)) == len(set().union(*covering.values()) if covering else set())
    try:
        best = brute_force_max_packing(grid_rows, wrap, pieces, objective="cells", node_limit=20_000, lattice=lattice)
    except TooHard:
        return
    packed = pack(inst, "cells")
    assert packed.proved and packed.optimum == best
    if packed.packing is not None:
        assert not problems(inst, packed.packing, partial=True)


@pytest.mark.parametrize("grid", ["triangle", "hex", "cube", "square"])
def test_grid_against_the_oracle(grid):
    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(instances(grid))
    def run(inst):
        _check(inst)

    run()
