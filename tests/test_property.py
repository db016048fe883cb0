"""Random boards and piece sets: every encoding x solver finds exactly the
tilings an independent brute-force tiler finds."""

import pytest
from hypothesis import event, given, reject, settings
from hypothesis import strategies as st
from tilesat.certify.oracle import TooHard, brute_force_tilings, tiling_checker

from tilesat import Board, Instance, PieceRule, builtin_piece, check_unique, iter_tilings
from tilesat.sat.encodings import ENCODINGS
from tilesat.sat.formula import compile_formula
from tilesat.model.placements import generate_placements
from tilesat.model.instance import INF
from tilesat.model.pieces import parse_drawing

CAP = 40  # compare at most this many tilings (a 6x6 domino board has 6728)
SOLVERS = ["cadical195", "glucose4"]
POOL = [builtin_piece(n) for n in ("I1", "I2", "I3", "L3", "O4", "T4", "L4", "S4", "J4")] + [
    parse_drawing("D", "#.#"),  # disconnected: the region check must not apply
    parse_drawing("Q", "##/#."),
]


@st.composite
def instances(draw):
    rows = draw(st.integers(1, 6))
    cols = draw(st.integers(1, 6))
    cells = st.tuples(st.integers(0, rows - 1), st.integers(0, cols - 1))
    blocked = draw(st.sets(cells, max_size=(rows * cols) // 3))
    grid = ["".join("#" if (r, c) in blocked else "." for c in range(cols)) for r in range(rows)]
    wrap = draw(st.sampled_from(["none", "none", "rows", "columns", "both"]))
    first = draw(st.sampled_from(POOL[:4]))  # a small piece, so that many boards tile
    pieces = [first] + draw(st.lists(st.sampled_from(POOL), max_size=2, unique_by=lambda p: p.name))
    pieces = list({p.name: p for p in pieces}.values())
    rules = []
    for p in pieces:
        orient = draw(st.sampled_from(["free", "free", "one-sided", "fixed"]))
        lo, hi = draw(st.sampled_from([(0, INF), (0, INF), (1, 1), (0, 2), (1, 3), (2, INF), (0, 0)]))
        rules.append(PieceRule(p, orient, lo, hi))
    return Instance(Board.from_rows(grid, wrap), tuple(rules))


def _args(instance):
    grid = instance.board.rows_text()
    return grid, instance.board.wrap, [(r.name, r.piece.cells, r.orient, r.min, r.max) for r in instance.rules]


def oracle(instance, cap=CAP):
    try:
        return brute_force_tilings(*_args(instance), cap=cap)
    except TooHard:
        event("oracle gave up")
        reject()  # the brute force cannot decide it in time: not a usable example


def oracle_checker(instance):
    return tiling_checker(*_args(instance))


def as_key(tiling):
    return frozenset((t.piece, frozenset(t.cells)) for t in tiling)


@settings(max_examples=100)
@given(instances())
def test_every_encoding_and_solver_finds_the_oracle_tilings(instance):
    truth = oracle(instance)
    event(f"tilings: {min(len(truth), 2) if len(truth) <= CAP else 'many'}")
    accepts = oracle_checker(instance)
    for encoding in ENCODINGS:
        for solver in SOLVERS:
            found = [as_key(t) for t in iter_tilings(instance, limit=CAP + 1, encoding=encoding, solver=solver)]
            assert len(found) == len(set(found)), (encoding, solver, "a tiling was listed twice")
            if len(truth) <= CAP:
                assert set(found) == truth, (encoding, solver)
            else:
                assert len(found) == CAP + 1
                assert all(map(accepts, found))


@settings(max_examples=40)
@given(instances(), st.sampled_from(list(ENCODINGS)))
def test_check_unique_verdict_matches_oracle(instance, encoding):
    truth = oracle(instance)
    result = check_unique(instance, encoding=encoding)
    expected = {0: "none", 1: "unique"}.get(len(truth), "multiple")
    assert result.verdict == expected
    accepts = oracle_checker(instance)
    assert all(accepts(as_key(t)) for t in result.tilings)


@pytest.mark.parametrize("card", ["seqcounter", "totalizer", "cardnetwrk", "kmtotalizer", "sortnetwrk", "mtotalizer"])
def test_every_card_encoding_counts_pieces(card):
    # 2x6 by I2 (at most 2) and I3/L3: each count rule enforced by every --card
    board = Board.rectangle(2, 6)
    rules = (PieceRule(builtin_piece("I2"), "free", 0, 2), PieceRule(builtin_piece("L3"), "free", 1, 2),
             PieceRule(builtin_piece("I3"), "free", 0, INF))
    inst = Instance(board, rules)
    truth = oracle(inst, cap=10_000)
    assert {as_key(t) for t in iter_tilings(inst, card=card)} == truth


def test_an_upper_count_no_tiling_can_reach_gets_no_clauses():
    # 4x4 by I2 and O4: at most 8 dominoes fit, so "at most 8" (or 20) binds nothing and is
    # left out of the formula, while "at most 7" is kept; the tilings are the oracle's either way
    board = Board.rectangle(4, 4)
    sizes = {}
    for hi in (7, 8, 20, INF):
        inst = Instance(board, (PieceRule(builtin_piece("I2"), "free", 0, hi), PieceRule(builtin_piece("O4"), "free")))
        sizes[hi] = compile_formula(generate_placements(inst)).nvars
        assert {as_key(t) for t in iter_tilings(inst)} == oracle(inst, cap=10_000)
    assert sizes[8] == sizes[20] == sizes[INF] < sizes[7]
