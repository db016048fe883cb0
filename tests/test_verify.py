"""The independent checker rejects every kind of wrong tiling, and a wrong
tiling from the pipeline is a loud crash, never a printed result."""

import pytest

from tilesat import Board, Instance, Tile, Tiling, VerificationError, parse_instance, parse_pieces, solve
from tilesat.verify import problems, verify_tiling


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
    import tilesat.search as search

    real = search.tiling_from_model

    def lose_a_tile(placements, model):
        t, chosen = real(placements, model)
        return Tiling(t.tiles[1:]), chosen

    monkeypatch.setattr(search, "tiling_from_model", lose_a_tile)
    with pytest.raises(VerificationError, match="BUG"):
        solve(Instance(Board.rectangle(2, 4), parse_pieces("I2")))
