import pytest
from hypothesis import given, strategies as st

from tilesat.model.pieces import (
    HEXOMINO_NAMES, SET_SIZES, builtin_names, builtin_piece, canonical, free_polyominoes, parse_drawing, piece_set, transforms,
)


def test_free_polyomino_counts():
    assert [len(free_polyominoes(n)) for n in range(1, 8)] == [1, 1, 2, 5, 12, 35, 108]


def test_fixed_and_one_sided_counts_follow_from_orientations():
    # OEIS A000988 (one-sided) and A001168 (fixed)
    for n, one_sided, fixed in [(4, 7, 19), (5, 18, 63), (6, 60, 216), (7, 196, 760)]:
        shapes = free_polyominoes(n)
        assert sum(len({canonical(t, "one-sided") for t in transforms(s, "free")}) for s in shapes) == one_sided
        assert sum(len(transforms(s, "free")) for s in shapes) == fixed


@pytest.mark.parametrize("name,size", SET_SIZES.items())
def test_sets(name, size):
    members = piece_set(name)
    assert len(members) == len(free_polyominoes(size))
    assert {canonical(p.cells) for p in members} == set(free_polyominoes(size))
    assert len({p.name for p in members}) == len(members)


def test_letter_names():
    assert [p.name for p in piece_set("pentominoes")] == "F5 I5 L5 N5 P5 T5 U5 V5 W5 X5 Y5 Z5".split()
    assert [p.name for p in piece_set("tetrominoes")] == "I4 O4 T4 S4 L4".split()
    assert piece_set("hexominoes")[0].name == "I06" and piece_set("hexominoes")[-1].name == "X16"
    assert piece_set("heptominoes")[-1].name == "H7_107"
    assert builtin_piece("H7_042") == piece_set("heptominoes")[42]
    assert builtin_piece("monomino").name == "I1" and builtin_piece("domino").name == "I2"
    assert builtin_piece("l4").name == "L4"


@pytest.mark.parametrize(
    "name,free,one_sided",
    [("I1", 1, 1), ("I2", 2, 2), ("L3", 4, 4), ("O4", 1, 1), ("T4", 4, 4), ("S4", 4, 2), ("L4", 8, 4),
     ("F5", 8, 4), ("I5", 2, 2), ("X5", 1, 1), ("N5", 8, 4), ("W5", 4, 4), ("U5", 4, 4), ("Z5", 4, 2)],
)
def test_orientation_counts(name, free, one_sided):
    p = builtin_piece(name)
    assert len(p.orientations("free")) == free
    assert len(p.orientations("one-sided")) == one_sided
    assert p.orientations("fixed") == [p.cells]


def test_mirror_pairs():
    assert canonical(builtin_piece("Z4").cells, "one-sided") != canonical(builtin_piece("S4").cells, "one-sided")
    assert canonical(builtin_piece("Z4").cells) == canonical(builtin_piece("S4").cells)
    assert canonical(builtin_piece("J4").cells) == canonical(builtin_piece("L4").cells)


def test_every_builtin_is_connected_and_round_trips():
    for n in builtin_names():
        p = builtin_piece(n)
        assert p.is_connected()
        assert parse_drawing(p.name, p.drawing()) == p
    assert not parse_drawing("D", "#.#").is_connected()


@given(st.integers(1, 3).flatmap(lambda w: st.lists(st.text(".#ABZ", min_size=w, max_size=w), min_size=1, max_size=3))
       .filter(lambda rows: any(ch != "." for row in rows for ch in row)))
def test_a_coloured_drawing_gives_each_cell_its_letters_colour(rows):
    piece = parse_drawing("x", "/".join(rows))
    marks = {(r, c): 0 if ch == "#" else "ABCDEFGHIJKLMNOPQRSTUVWXYZ".index(ch) + 1
             for r, row in enumerate(rows) for c, ch in enumerate(row) if ch != "."}
    top, left = min(r for r, _ in marks), min(c for _, c in marks)
    assert dict(zip(piece.cells, piece.colours or [0] * piece.size)) == {(r - top, c - left): k for (r, c), k in marks.items()}
    assert parse_drawing("x", piece.drawing()) == piece


def test_hexominoes_have_their_published_names_and_keep_the_old_ones():
    members = piece_set("hexominoes")
    assert sorted(p.name for p in members) == sorted(HEXOMINO_NAMES) and len(set(HEXOMINO_NAMES)) == 35
    for i, p in enumerate(members):
        assert builtin_piece(f"H6_{i:02d}") == p  # the enumeration's names still work
        assert builtin_piece(p.name.lower()) == p
    # the shapes the names are known for (Polyform Puzzler's drawings, as tilesat draws them)
    def shape(drawing):
        return canonical(parse_drawing("x", drawing).cells)
    assert canonical(builtin_piece("I06").cells) == shape("######")
    assert canonical(builtin_piece("O06").cells) == shape("###/###")
    assert canonical(builtin_piece("L06").cells) == shape("#..../#####")
    assert canonical(builtin_piece("X06").cells) == shape(".#../####/.#..")
    assert canonical(builtin_piece("C06").cells) == shape("####/#..#")
    assert canonical(builtin_piece("X16'").cells) == canonical(builtin_piece("X16").cells)  # free: a mirror image
    assert builtin_piece("X16'").cells != builtin_piece("X16").cells
