"""The frontier (transfer-matrix) counting engine: known answers, refusals,
and agreement with the brute-force oracle and the other exact methods."""

import dataclasses

import pytest
from hypothesis import given, reject, settings
from hypothesis import strategies as st
from tilesat.certify.oracle import TooHard, brute_force_tilings
from test_property import _args, instances

from tilesat.engines import frontier
from tilesat.engines.dlx import dlx_problem
from tilesat.questions.count import count_tilings
from tilesat.model.instance import parse_instance


def board(pieces, rows, cols, wrap="none"):
    return parse_instance(f"pieces: {pieces}\nwrap: {wrap}\n" + ("." * cols + "\n") * rows)


def aztec(n, pieces="domino"):
    rows = []
    for i in range(2 * n):
        w = 2 * min(i + 1, 2 * n - i)
        pad = (2 * n - w) // 2
        rows.append("#" * pad + "." * w + "#" * pad)
    return parse_instance(f"pieces: {pieces}\n" + "\n".join(rows) + "\n")


@pytest.fixture(scope="module", autouse=True)
def compiled():
    frontier.warm_up()


@pytest.mark.parametrize("pieces, rows, cols, expected", [
    ("domino", 8, 8, 12_988_816),
    ("domino", 12, 12, 53_060_477_521_960_000),
    ("L3", 9, 12, 467_966_840),
    ("L3, I3", 9, 12, 20_574_308_184_277_971),  # Project Euler 161
    ("L3, I3", 12, 9, 20_574_308_184_277_971),  # the same board, scanned the other way
    ("tetrominoes:2", 5, 8, 3_106),
    ("L3", 2, 3, 2),
    ("domino", 3, 3, 0),  # odd area
])
def test_known_answers(pieces, rows, cols, expected):
    instance = board(pieces, rows, cols)
    assert frontier.problem(instance) is None
    assert frontier.count(instance) == expected


@pytest.mark.parametrize("n", [1, 2, 3, 5, 7])
def test_aztec_diamonds(n):
    """Holes: the Aztec diamond of order n has 2^(n(n+1)/2) domino tilings."""
    assert frontier.count(aztec(n)) == 2 ** (n * (n + 1) // 2)


def test_counts_past_several_limbs_are_exact():
    """Monominoes and dominoes on 5x40: a count over 2**130 (three 62-bit
    limbs), equal to the pure-Python big-int reference."""
    instance = board("monomino, domino", 5, 40)
    got = frontier.count(instance)
    assert got > 2**130
    assert got == frontier.count_python(instance)


def test_dominoes_on_a_cylinder():
    """Wrap along the scan: 2 x n cylinders (rows wrap) of dominoes; a 2x4
    cylinder has 9 tilings (checked against the brute force)."""
    instance = board("domino", 2, 4, wrap="rows")
    grid, wrap, pieces = _args(instance)
    assert frontier.problem(instance) is None
    assert frontier.count(instance) == len(brute_force_tilings(grid, wrap, pieces)) == 9


@pytest.mark.parametrize("pieces, rows, cols, expected", [
    ("domino:5", 2, 2, 0),  # more copies required than fit
    ("domino:1, monomino", 1, 3, 2),  # exactly one domino in a row of 3
    ("domino:0..1, monomino", 2, 2, 5),  # none (1) or one of 4 placements
    ("domino:2.., monomino", 2, 3, 14),  # 11 disjoint pairs + 3 tilings by 3 dominoes
])
def test_piece_counts(pieces, rows, cols, expected):
    instance = board(pieces, rows, cols)
    truth = brute_force_tilings(*_args(instance))
    assert frontier.count(instance) == len(truth) == expected


def test_refuses_a_window_wider_than_a_machine_word():
    assert "cells wide" in frontier.problem(board("domino", 70, 70))
    message = frontier.problem(board("domino", 20, 20, wrap="both"))
    assert "wrap" in message and "\n" not in message
    assert frontier.problem(board("domino", 20, 20, wrap="rows")) is None  # a cylinder scanned along its wrap


@pytest.mark.slow
def test_pentomino_rectangle():
    assert frontier.count(board("pentominoes:1", 6, 10)) == 9_356


@settings(max_examples=40, deadline=None)
@given(instances())
def test_counts_like_the_oracle_and_the_other_methods(instance):
    grid, wrap, pieces = _args(instance)
    try:
        truth = brute_force_tilings(grid, wrap, pieces, node_limit=50_000)
    except TooHard:
        reject()
    if frontier.problem(instance) is not None:
        reject()
    got = frontier.count(instance)
    assert got == len(truth)
    assert frontier.count_python(instance) == got
    other = "dlx" if dlx_problem(instance) is None else "ganak"
    assert count_tilings(instance, other).count == got


@settings(max_examples=12, deadline=None)
@given(st.integers(1, 4), st.integers(1, 6), st.sampled_from(["none", "rows", "columns"]),
       st.sampled_from(["domino", "L3, I3", "L3:2.., monomino:0..3", "T4:1..2, domino, monomino:0..2"]))
def test_bigger_boards_agree_with_dlx_or_ganak(rows, cols, wrap, pieces):
    instance = board(pieces, rows, cols, wrap)
    if frontier.problem(instance) is not None:
        reject()
    method = "dlx" if dlx_problem(instance) is None else "ganak"
    assert frontier.count(instance) == count_tilings(instance, method).count


def test_an_area_no_piece_sizes_make_is_counted_at_once():
    """Was: 21 s to find no tromino tiling of a 5x14 cylinder (70 cells),
    exploring every 28-cell frontier before the last cell said 0."""
    import time

    start = time.perf_counter()
    assert frontier.count(board("L3, I3", 5, 14, wrap="rows")) == 0
    assert time.perf_counter() - start < 2


def test_refuses_too_many_count_states_in_one_line():
    message = frontier.problem(board("pentominoes:0..3", 5, 6))
    assert "count states" in message and "\n" not in message


def test_piece_counts_beyond_the_state_are_refused_in_one_line():
    """Found by the CLI fuzz test: 108 heptominoes each 0..1 overflowed the count layout (OverflowError)."""
    from tilesat.model.instance import parse_instance

    instance = parse_instance("pieces: heptominoes:0..1\n" + "." * 70 + "\n")
    assert "bits of state" in frontier.problem(instance)


def test_a_minimum_beyond_the_board_counts_zero():
    """Found by the CLI fuzz test: L4:99999999999999999999 overflowed int64 in make_plan."""
    instance = parse_instance("pieces: I2, L4\n........\n........\n")  # the files' parser stops counts past 10**9
    instance = instance.with_rules([instance.rules[0], dataclasses.replace(instance.rules[1], min=10**20, max=10**20)])
    assert frontier.problem(instance) is None and frontier.count(instance) == 0
