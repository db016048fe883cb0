"""The pfaffian engine: domino tilings of planar boards as |det| of a Kasteleyn
matrix.  Known answers, the sign rule proved against independent counters on
random boards with holes, and what the engine refuses."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import given, reject, settings
from hypothesis import strategies as st
from tilesat.certify.oracle import TooHard, brute_force_tilings

from tilesat.engines import pfaffian
from tilesat.model.board import Board
from tilesat.engines.dlx import dlx_problem
from tilesat.questions.count import count_tilings
from tilesat.model.instance import INF, Instance, PieceRule, parse_instance
from tilesat.model.pieces import Piece

DOMINO = Piece("I2", ((0, 0), (0, 1)))
UPRIGHT = Piece("D", ((0, 0), (1, 0)))  # a custom domino drawn standing up


def board_text(rows, pieces="I2"):
    return parse_instance(f"pieces: {pieces}\n" + "\n".join(rows) + "\n")


def profile_count(grid, horizontal=1, vertical=1):
    """Independent reference: domino tilings of ``grid`` (strings, '.' open) by
    a broken-profile transfer matrix, each horizontal domino weighted
    ``horizontal`` and each vertical one ``vertical`` (the number of rules that
    may lay it)."""
    R, C = len(grid), len(grid[0])
    if C > R:  # the profile runs along the narrower side
        return profile_count(["".join(row[c] for row in grid) for c in range(C)], vertical, horizontal)
    free = [[ch == "." for ch in row] for row in grid]

    @lru_cache(maxsize=None)
    def fill(pos, covered):  # covered: bitmask of cells pos..pos+C already covered
        if pos == R * C:
            return 1
        r, c = divmod(pos, C)
        if not free[r][c] or covered & 1:
            return fill(pos + 1, covered >> 1)
        total = 0
        if horizontal and c + 1 < C and free[r][c + 1] and not covered & 2:
            total += horizontal * fill(pos + 2, covered >> 2)
        if vertical and r + 1 < R and free[r + 1][c]:
            total += vertical * fill(pos + 1, (covered | (1 << C)) >> 1)
        return total

    return fill(0, 0)


def aztec(n):
    return ["".join("." if abs(r - n + 0.5) + abs(c - n + 0.5) <= n else "#" for c in range(2 * n))
            for r in range(2 * n)]


# --- known answers ----------------------------------------------------------

def test_8x8_and_12x12():
    assert pfaffian.count(board_text(["." * 8] * 8)) == 12_988_816
    assert pfaffian.count(board_text(["." * 12] * 12)) == 53_060_477_521_960_000


@pytest.mark.parametrize("n", range(1, 12))
def test_2xn_is_fibonacci(n):
    a, b = 1, 1
    for _ in range(n):
        a, b = b, a + b
    assert pfaffian.count(board_text(["." * n] * 2)) == a


@pytest.mark.parametrize("n", range(1, 16))
def test_aztec_diamonds(n):
    grid = aztec(n)
    assert grid[0] == "#" * (n - 1) + ".." + "#" * (n - 1)  # the shape: a 2-cell top row, 2n cells across the middle
    assert grid[n - 1] == "." * (2 * n) and sum(row.count(".") for row in grid) == 2 * n * (n + 1)
    assert pfaffian.count(board_text(grid)) == 2 ** (n * (n + 1) // 2)


def kasteleyn_product(m, n):
    """Kasteleyn's 1961 product formula for the m x n rectangle, in floats."""
    log = 0.0
    for j in range(1, m + 1):
        for k in range(1, n + 1):
            log += math.log(4 * math.cos(math.pi * j / (m + 1)) ** 2 + 4 * math.cos(math.pi * k / (n + 1)) ** 2) / 4
    return log


@pytest.mark.parametrize("m, n", [(10, 30), (30, 30), (40, 40), (7, 60)])
def test_rectangles_match_the_product_formula(m, n):
    exact = pfaffian.count(board_text(["." * n] * m))
    assert exact > 0 and abs(math.log(exact) - kasteleyn_product(m, n)) < 1e-9


def test_two_components_multiply():
    # a full blocked row splits the board: the count is the product of the halves
    rng = np.random.default_rng(5)
    top = ["".join("#" if x < 0.05 else "." for x in row) for row in rng.random((9, 24))]
    bottom = ["." * 24] * 6
    a, b, ab = (pfaffian.count(board_text(g)) for g in (top, bottom, top + ["#" * 24] + bottom))
    assert ab == a * b and b == profile_count(bottom)


# --- the sign rule on boards with holes ---------------------------------------

def plain_weighting_count(grid):
    """|det| with the plain weighting (horizontal +1, vertical (-1)**c, no
    flips for holes): right for simply connected boards only."""
    R, C = len(grid), len(grid[0])
    cells = [(r, c) for r in range(R) for c in range(C) if grid[r][c] == "."]
    black = [x for x in cells if sum(x) % 2 == 0]
    white = {x: i for i, x in enumerate(x for x in cells if sum(x) % 2)}
    if len(black) != len(white):
        return 0
    K = np.zeros((len(black), len(black)))
    for i, (r, c) in enumerate(black):
        for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)):
            if (r + dr, c + dc) in white:
                K[i, white[r + dr, c + dc]] = 1 if dr == 0 else (-1) ** min(c, c + dc)
    return round(abs(np.linalg.det(K)))


@pytest.mark.parametrize("grid, tilings", [
    (["...", ".#.", "..."], 2),  # a ring around one hole: the plain weighting says 0
    (["#..", "...", ".#.", "..."], 3),
    (["......", ".#..#.", "......", "......"], profile_count(["......", ".#..#.", "......", "......"])),
])
def test_holes_need_the_flipped_signs(grid, tilings):
    """The boards that caught the plain weighting: the engine counts them right."""
    assert profile_count(grid) == tilings
    assert pfaffian.count(board_text(grid)) == tilings
    if grid[1] == ".#.":
        assert plain_weighting_count(grid) != tilings  # the test can fail: the flips matter


@st.composite
def holed_boards(draw, max_side=8):
    rows = draw(st.integers(1, max_side))
    cols = draw(st.integers(1, max_side))
    cells = st.tuples(st.integers(0, rows - 1), st.integers(0, cols - 1))
    blocked = draw(st.sets(cells, max_size=(rows * cols) // 3))
    return ["".join("#" if (r, c) in blocked else "." for c in range(cols)) for r in range(rows)]


@settings(max_examples=300, deadline=None)
@given(holed_boards(), st.sampled_from(["free", "one-sided", "fixed"]), st.booleans())
def test_counts_like_the_transfer_matrix(grid, orient, two_rules):
    """Up to 8 x 8 with random holes, fixed orientations, a second domino rule
    (parallel edges): the determinant equals an independent transfer matrix."""
    rules = [PieceRule(DOMINO, orient)]
    horizontal, vertical = 1, 0 if orient == "fixed" else 1
    if two_rules:
        rules.append(PieceRule(UPRIGHT, "fixed"))
        vertical += 1
    instance = Instance(Board.from_rows(grid), tuple(rules))
    assert pfaffian.problem(instance) is None
    assert pfaffian.count(instance) == profile_count(grid, horizontal, vertical)


@settings(max_examples=60, deadline=None)
@given(holed_boards(max_side=6))
def test_counts_like_the_oracle_and_dancing_links(grid):
    instance = Instance(Board.from_rows(grid), (PieceRule(DOMINO),))
    if instance.board.area == 0:
        reject()
    try:
        truth = brute_force_tilings(grid, "none", [("I2", DOMINO.cells, "free", 0, INF)], node_limit=20_000)
    except TooHard:
        reject()
    assert pfaffian.count(instance) == len(truth)
    assert dlx_problem(instance) is None
    assert count_tilings(instance, "dlx").count == len(truth)
    if len(truth) <= 40:
        assert count_tilings(instance, "blocking").count == len(truth)


# --- counts, colours, refusals ------------------------------------------------

def test_unbalanced_and_odd_boards_are_zero_at_once():
    assert pfaffian.count(board_text(["...", "..."])) == 3
    assert pfaffian.count(board_text(["...", "..#"])) == 0  # odd area
    assert pfaffian.count(board_text(["...", "#.#"])) == 0  # a T: 3 of its 4 cells of one colour
    assert pfaffian.count(board_text(["#..", "..#"])) == 1
    assert pfaffian.count(board_text(["..#.", "..#.", "...."])) == profile_count(["..#.", "..#.", "...."])
    assert pfaffian.count(board_text([".#..", "##..", "...."])) == 0  # an isolated cell
    assert pfaffian.count(board_text(["..##..", "..##.."])) == 4  # two components: 2 x 2


def test_a_single_rule_with_a_count():
    assert pfaffian.count(board_text(["...", "..."], "I2:3")) == 3
    assert pfaffian.count(board_text(["...", "..."], "I2:1..2")) == 0
    assert pfaffian.count(board_text(["...", "..."], "I2:3..")) == 3
    assert pfaffian.count(board_text(["...", "..."], "I2:0")) == 0


def test_problem_says_why():
    assert pfaffian.problem(board_text(["....", "...."])) is None
    assert pfaffian.problem(parse_instance("wrap: rows\npieces: I2\n....\n....\n")) == (
        "the board wraps (rows): Kasteleyn's determinant counts planar boards only")
    assert pfaffian.problem(board_text(["......"] * 2, "I2, L3")) == (
        "L3 is not a domino: the Pfaffian method counts domino tilings only")
    assert "piece counts" in pfaffian.problem(
        parse_instance("shape: D #/#\npieces: I2:1.., D\n....\n....\n"))
    with pytest.raises(Exception, match="pfaffian: L3 is not a domino"):
        pfaffian.count(board_text(["......"] * 2, "L3"))


def test_placements_given_are_used():
    from tilesat.model.placements import generate_placements

    instance = board_text(["....", "....", "...."])
    assert pfaffian.count(instance, generate_placements(instance)) == pfaffian.count(instance) == 11


def random_holes(rows, cols, holes, seed):
    """A board with ``holes`` random blocked cells, half on each colour (so that it may tile)."""
    rng = np.random.default_rng(seed)
    grid = np.ones((rows, cols), dtype=bool)
    colour = np.add.outer(np.arange(rows), np.arange(cols)).ravel() % 2
    for k in (0, 1):
        grid.flat[rng.choice(np.flatnonzero(colour == k), holes // 2, replace=False)] = False
    return ["".join("." if x else "#" for x in row) for row in grid]


def test_long_holed_board_against_the_transfer_matrix():
    grid = random_holes(40, 9, 20, seed=3)
    truth = profile_count(grid)
    assert truth > 10**20 and pfaffian.count(board_text(grid)) == truth


@pytest.mark.slow
def test_wide_holed_board_against_the_transfer_matrix():
    grid = random_holes(40, 12, 20, seed=7)  # as wide as the Python transfer matrix goes in seconds
    truth = profile_count(grid)
    assert truth > 0 and pfaffian.count(board_text(grid)) == truth
