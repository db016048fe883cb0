"""One-sided sets on the square grid (issue 17): mirror images as pieces of their own."""

import pytest

from tilesat import parse_instance
from tilesat.questions.count import count_tilings
from tilesat.errors import TilesatError
from tilesat.model.instance import parse_pieces
from tilesat.model.pieces import builtin_piece, canonical, free_polyominoes, piece_set, transforms


@pytest.mark.parametrize("name,count", [("tetrominoes-one-sided", 7), ("pentominoes-one-sided", 18),
                                        ("hexominoes-one-sided", 60)])
def test_one_sided_set_sizes(name, count):
    # OEIS A000988: 7, 18, 60 one-sided polyominoes of 4, 5, 6 cells
    members = piece_set(name)
    assert len(members) == count
    assert len({canonical(p.cells, "one-sided") for p in members}) == count  # all different when turning only


def test_mirror_images_are_named_with_a_prime():
    names = [p.name for p in piece_set("pentominoes-one-sided")]
    assert names == ["F5", "F5'", "I5", "L5", "L5'", "N5", "N5'", "P5", "P5'", "T5", "U5", "V5", "W5", "X5",
                     "Y5", "Y5'", "Z5", "Z5'"]
    f, f_ = builtin_piece("F5"), builtin_piece("f5'")
    assert f_.cells in transforms(f.cells, "free") and f_.cells not in transforms(f.cells, "one-sided")
    with pytest.raises(KeyError):
        builtin_piece("X5'")  # symmetric: no separate mirror image


def test_one_sided_sets_take_counts_and_default_to_one_sided():
    rules = parse_pieces("pentominoes-one-sided:1")
    assert len(rules) == 18 and all(r.orient == "one-sided" and r.min == r.max == 1 for r in rules)
    assert parse_pieces("tetrominoes-one-sided/fixed:2")[0].orient == "fixed"
    assert [r.name for r in parse_pieces("S4', L4'/free")] == ["S4'", "L4'"]
    with pytest.raises(TilesatError):
        parse_pieces("pentominoes-one-sided, F5")  # F5 listed twice


def test_every_free_pentomino_shape_appears_in_both_hands():
    shapes = {canonical(p.cells) for p in piece_set("pentominoes-one-sided")}
    assert shapes == set(free_polyominoes(5))


@pytest.mark.slow
def test_one_sided_pentominoes_3x30_give_46():
    # The 18 one-sided pentominoes fill a 3x30 rectangle in 46 ways up to
    # symmetry (a reflection exchanges each chiral piece with its mirror
    # image); no solution is symmetric, so 4 x 46 raw.
    inst = parse_instance("pieces: pentominoes-one-sided:1\n" + ("." * 30 + "\n") * 3)
    result = count_tilings(inst, "native", up_to_symmetry=True)
    assert (result.count, result.up_to_symmetry) == (184, 46)


def test_mirror_exchange_is_a_symmetry_and_classes_agree_with_a_brute_force():
    # one L-tetromino of each hand in 2x4 and 4x4 rings: a reflection of the
    # board is a symmetry only by exchanging L4 and L4'
    inst = parse_instance("pieces: L4/one-sided:1, L4'/one-sided:1, I2\n....\n....\n.##.\n....\n")
    from tilesat.certify.oracle import board_maps, brute_force_tilings, orbit_count
    pieces = [(r.name, r.piece.cells, r.orient, r.min, r.max) for r in inst.rules]
    truth = brute_force_tilings(inst.board.rows_text(), "none", pieces)
    expected = orbit_count(truth, board_maps(inst.board.rows_text(), "none", pieces))
    for method in ("dlx", "blocking"):
        result = count_tilings(inst, method, up_to_symmetry=True)
        assert result.count == len(truth)
        assert result.up_to_symmetry == expected


def test_oracle_symmetries_ignore_a_piece_no_tiling_uses():
    # a fixed L3 allowed 0 times ruled out the square's turns in the oracle's
    # board maps (tilesat's group, built from placements, kept them): 4 classes, not 3
    import numpy as np

    from tilesat import Board, Instance
    from tilesat.certify.oracle import board_maps, brute_force_tilings, orbit_count

    inst = Instance(Board(np.ones((2, 2), bool)), parse_pieces("I1, L3/fixed:0, I2"))
    pieces = [(r.name, r.piece.cells, r.orient, r.min, r.max) for r in inst.rules]
    truth = brute_force_tilings(["..", ".."], "none", pieces)
    assert len(board_maps(["..", ".."], "none", pieces)) == 8
    assert orbit_count(truth, board_maps(["..", ".."], "none", pieces)) == 3
    assert count_tilings(inst, "dlx", up_to_symmetry=True).up_to_symmetry == 3


def test_symmetry_breaking_keeps_one_tiling_per_class_when_a_reflection_exchanges_pieces():
    # the reflection maps L4 onto L4': symbreak's lex-leader clauses over it (and its
    # own check of the symmetry, which once required every placement to keep its piece)
    from tilesat.sat.symbreak import check_symmetry
    from tilesat.model.symmetry import symmetry_group
    from tilesat import generate_placements

    inst = parse_instance("pieces: L4/one-sided:1, L4'/one-sided:1, I2\n....\n....\n.##.\n....\n")
    group = symmetry_group(generate_placements(inst))
    assert len(group) == 2 and all(check_symmetry(generate_placements(inst), g) is None for g in group)
    exact = count_tilings(inst, "dlx", up_to_symmetry=True)
    from tilesat.sat.options import DEFAULT_CARD, DEFAULT_ENCODING, DEFAULT_SOLVER
    broken = count_tilings(inst, "lexleader", up_to_symmetry=True, encoding=DEFAULT_ENCODING, solver=DEFAULT_SOLVER,
                           card=DEFAULT_CARD)
    assert (broken.count, broken.up_to_symmetry) == (exact.count, exact.up_to_symmetry) == (17, 10)


def test_frontier_refuses_classes_when_a_symmetry_exchanges_counted_pieces():
    # burnside's quotient gives an orbit one rule: with L4 and L4' exchanged and
    # each used once it would count wrong classes, so the engine says why instead
    inst = parse_instance("pieces: L4/one-sided:1, L4'/one-sided:1, I2\n....\n....\n.##.\n....\n")
    with pytest.raises(TilesatError) as e:
        count_tilings(inst, "frontier", up_to_symmetry=True)
    assert "exchanges pieces" in str(e.value) and "\n" not in str(e.value)
    assert count_tilings(inst, "frontier").count == 17  # raw counts need no quotient
    assert count_tilings(inst, "auto", up_to_symmetry=True).up_to_symmetry == 10
