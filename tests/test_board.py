"""Board regions (array union-find) against a plain breadth-first search."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesat import Board, parse_instance
from tilesat.certify.checks import region_check


def search_regions(board):
    """Components by BFS over Board.neighbours, in row-major order of first cell."""
    seen, out = set(), []
    for r in range(board.rows):
        for c in range(board.cols):
            if board.open[r, c] and (r, c) not in seen:
                seen.add((r, c))
                comp, todo = [], [(r, c)]
                while todo:
                    x = todo.pop()
                    comp.append(x)
                    for y in board.neighbours(*x):
                        if board.open[y] and y not in seen:
                            seen.add(y)
                            todo.append(y)
                out.append(sorted(comp))
    return out


@st.composite
def boards(draw):
    rows, cols = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    grid = draw(st.lists(st.lists(st.booleans(), min_size=cols, max_size=cols), min_size=rows, max_size=rows))
    return Board(np.array(grid, dtype=bool), draw(st.sampled_from(["none", "rows", "columns", "both"])))


@settings(max_examples=300)
@given(boards())
def test_regions_match_breadth_first_search(board):
    assert board.regions() == search_regions(board)
    labels = board.region_labels()
    for comp in board.regions():
        flat = [r * board.cols + c for r, c in comp]
        assert set(labels[flat].tolist()) == {min(flat)}


def test_serpentine_and_wrap_join():
    grid = np.ones((41, 40), dtype=bool)
    grid[1::4, :-1] = False  # one long snake: each wall leaves a gap at alternate ends
    grid[3::4, 1:] = False
    assert len(Board(grid).regions()) == 1
    split = np.ones((3, 5), dtype=bool)
    split[:, 2] = False
    assert len(Board(split).regions()) == 2
    assert len(Board(split, "rows").regions()) == 1  # joined round the cylinder


def test_region_check_names_the_first_bad_region():
    inst = parse_instance("pieces: I2\n..#...\n..#...\n")
    assert region_check(inst) is None  # 4 and 6 cells: both even
    inst = parse_instance("pieces: I2\n..#.#.\n...#..\n")
    assert region_check(inst) == "the region of 5 open cells containing (0, 0) cannot be made from pieces of size 2"
    reason = region_check(parse_instance("pieces: L3\n..#..\n..#..\n"))
    assert reason == "the region of 4 open cells containing (0, 0) cannot be made from pieces of size 3"
