"""The independent checker rejects every kind of wrong tiling, and a wrong
tiling from the pipeline is a loud crash, never a printed result."""

import pytest

from tilesat import Board, Instance, Tile, Tiling, VerificationError, parse_instance, parse_pieces, solve
from tilesat.certify.verify import problems, verify_tiling


def inst(text):
    return parse_instance(text)


def tiling(*tiles):
    return Tiling(tuple(Tile(p, tuple(sorted(cells))) for p, cells in tiles))


DOMINO_2X2 = inst("pieces: I2\n..\n..\n")


def test_valid_tiling_passes():
    t = tiling(("I2", [(0, 0), (0, 1)]), ("I2", [(1, 0), (1, 1)]))
    assert verify_tiling(DOMINO_2X2, t) is t


@pytest.mark.parametrize(
    "tiles,message",
    [
        ([("I2", [(0, 0), (0, 1)])], "covered 0 times"),
        ([("I2", [(0, 0), (0, 1)]), ("I2", [(0, 1), (1, 1)]), ("I2", [(1, 0), (1, 1)])], "covered 2 times"),
        ([("I2", [(0, 0), (1, 1)]), ("I2", [(0, 1), (1, 0)])], "not an allowed orientation"),
        ([("L4", [(0, 0), (0, 1)]), ("I2", [(1, 0), (1, 1)])], "does not allow"),
        ([("I2", [(0, 0), (0, 1)]), ("I2", [(1, 0), (1, 1)]), ("I2", [(2, 0), (2, 1)])], "off the board"),
    ],
)
def test_wrong_tilings_are_rejected(tiles, message):
    found = problems(DOMINO_2X2, tiling(*tiles))
    assert any(message in p for p in found), found
    with pytest.raises(VerificationError):
        verify_tiling(DOMINO_2X2, tiling(*tiles))


def test_blocked_cells_counts_orientation_and_wrap():
    blocked = inst("pieces: I2\n.#\n.#\n")
    assert any("blocked" in p for p in problems(blocked, tiling(("I2", [(0, 0), (0, 1)]))))
    counted = inst("pieces: I2:1\n..\n..\n")
    assert any("used 2 times" in p for p in problems(counted, tiling(("I2", [(0, 0), (0, 1)]), ("I2", [(1, 0), (1, 1)]))))
    fixed = inst("pieces: I2/fixed\n..\n..\n")  # drawn horizontal
    assert problems(fixed, tiling(("I2", [(0, 0), (0, 1)]), ("I2", [(1, 0), (1, 1)]))) == []
    assert problems(fixed, tiling(("I2", [(0, 0), (1, 0)]), ("I2", [(0, 1), (1, 1)])))
    # across the seam of a cylinder: legal with wrap, not without
    cyl = inst("pieces: I2\nwrap: rows\n...\n...\n")
    seam = tiling(("I2", [(0, 2), (0, 0)]), ("I2", [(0, 1), (1, 1)]), ("I2", [(1, 0), (1, 2)]))
    assert problems(cyl, seam) == []
    flat = inst("pieces: I2\n...\n...\n")
    assert problems(flat, seam)


def test_a_pipeline_bug_crashes_loudly(monkeypatch):
    import tilesat.engines.sat as search

    real = search.tiling_from_model

    def lose_a_tile(placements, model):
        t, chosen = real(placements, model)
        return Tiling(t.tiles[1:]), chosen

    monkeypatch.setattr(search, "tiling_from_model", lose_a_tile)
    with pytest.raises(VerificationError, match="BUG"):
        solve(Instance(Board.rectangle(2, 4), parse_pieces("I2")))


# The checker against the oracle's own notion of a tiling, on random boards
# and on tilings damaged in every way the checker looks for.
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from test_property import as_key, instances, oracle, oracle_checker  # noqa: E402


@st.composite
def damaged(draw, instance):
    found = sorted(oracle(instance, cap=3), key=sorted)
    tiles = list(draw(st.sampled_from(found))) if found else []
    names = [r.name for r in instance.rules] + ["Z9"]
    cell = st.tuples(st.integers(-1, instance.board.rows), st.integers(-1, instance.board.cols))
    for _ in range(draw(st.integers(0 if found else 1, 2))):
        how = draw(st.sampled_from(["drop", "shift", "rename", "repeat", "random", "twice"]))
        k = draw(st.integers(0, max(len(tiles) - 1, 0)))
        if how == "random" or not tiles:
            tiles.append((draw(st.sampled_from(names)), frozenset(draw(st.lists(cell, min_size=1, max_size=5)))))
        elif how == "drop":
            tiles.pop(k)
        elif how == "shift":
            dr, dc = draw(st.sampled_from([(0, 1), (1, 0), (0, -1), (-1, 0), (1, 1)]))
            tiles[k] = (tiles[k][0], frozenset((r + dr, c + dc) for r, c in tiles[k][1]))
        elif how == "rename":
            tiles[k] = (draw(st.sampled_from(names)), tiles[k][1])
        elif how == "repeat":
            tiles.append(tiles[k])
        else:  # a tile listing one of its cells twice
            name, cells = tiles[k]
            tiles[k] = (name, tuple(sorted(cells)) + (min(cells),))
    return Tiling(tuple(Tile(name, tuple(sorted(cells)) if isinstance(cells, frozenset) else cells)
                        for name, cells in tiles))


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_checker_agrees_with_the_oracle(data):
    instance = data.draw(instances())
    t = data.draw(damaged(instance))
    accepts = oracle_checker(instance)
    listed_twice = any(len(set(tile.cells)) != len(tile.cells) for tile in t)
    repeated = len(set(t.tiles)) != len(t.tiles)  # as_key, a set, would hide it
    expected = accepts(as_key(t)) and not listed_twice and not repeated
    assert (problems(instance, t) == []) == expected, problems(instance, t)
