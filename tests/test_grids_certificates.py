"""No-tiling certificates on the triangle, hex and cube grids: found by the LP
(or a modular colouring), re-checked by the independent checker (which turns
pieces with the grid's point maps, not tilesat.model.placements), refused when
damaged, and produced only when the brute-force oracle finds no tiling."""

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tilesat import Board, Instance, generate_placements
from tilesat.certify.certificate import (
    Certificate,
    CertificateError,
    _placement_values,
    _weight_grid,
    check_certificate,
    lp_certificate,
    modular_certificate,
)
from tilesat.model.instance import INF, PieceRule
from tilesat.certify.oracle import TooHard, brute_force_tilings
from tilesat.model.pieces import grid_piece_set


def instance(grid, mask, rules):
    return Instance(Board(np.array(mask, dtype=bool), "none", grid), tuple(rules))


def free(piece, lo=0, hi=INF):
    return PieceRule(piece, "free", lo, hi)


def oracle_tilings(inst):
    pieces = [(r.name, r.piece.cells, r.orient, r.min, r.max) for r in inst.rules]
    return brute_force_tilings(inst.board.cells(inst.board.open_cells), "none", pieces,
                               node_limit=20_000, lattice=inst.board.grid)


def oracle_placements(inst):
    pieces = [(r.name, r.piece.cells, r.orient, r.min, r.max) for r in inst.rules if r.max > 0]
    covering, _ = brute_force_tilings(inst.board.cells(inst.board.open_cells), "none", pieces,
                                      cap="check", lattice=inst.board.grid)
    return set().union(*covering.values()) if covering else set()


def checker_placements(inst):
    """The placements the certificate checker sums over: (piece, cells)."""
    grid = _weight_grid(inst, Certificate({}, {}, 0))
    out = set()
    for rule, _, fits, tile in _placement_values(inst, grid, {}):
        for anchor in np.argwhere(fits):
            out.add((rule.name, frozenset(tile(tuple(int(x) for x in anchor)))))
    return out


def assert_checks_and_damage_refused(inst, cert):
    check_certificate(inst, cert)
    again = Certificate.from_json(json.loads(json.dumps(cert.to_json())))
    assert again.weights == cert.weights and again.total == cert.total
    check_certificate(inst, again)
    with pytest.raises(CertificateError):  # the total no longer adds up
        check_certificate(inst, Certificate(cert.weights, cert.rules, cert.total + 1, cert.modulus))
    if cert.modulus is not None:
        return
    # a consistent total, but a placement over the cell now weighs > 0
    name, tile = sorted(oracle_placements(inst), key=lambda p: sorted(p[1]))[0]
    cell = min(tile)
    big = 1 + 8 * max([abs(w) for w in cert.weights.values()] + [abs(v) for v in cert.rules.values()] + [1])
    weights = dict(cert.weights)
    weights[cell] = weights.get(cell, 0) + big
    with pytest.raises(CertificateError, match="covers weight"):
        check_certificate(inst, Certificate(weights, cert.rules, cert.total + big))
    # a weight on a cell the board does not have
    off = tuple(n for n in inst.board.shape)
    with pytest.raises(CertificateError, match="not an open cell"):
        check_certificate(inst, Certificate({**cert.weights, off: 0}, cert.rules, cert.total))


def triangle_hexagon_missing_two_ups():
    """Diamonds (lozenges) on a 2,2,2 hexagon without two up triangles:
    22 cells, an even area, but 4 more down triangles than up ones."""
    inst = instance("triangle", [[0, 1, 1, 1, 1, 1, 0], [1, 1, 1, 1, 1, 1, 1],
                                 [1, 1, 1, 1, 1, 1, 1], [0, 1, 1, 1, 1, 1, 0]],
                    [free(grid_piece_set("triangle", "diamond")[0])])
    mask = np.array(inst.board.open)
    ups = [c for c in inst.board.cells(inst.board.open_cells) if (c[0] + c[1]) % 2 == 0]
    for cell in ups[:2]:
        mask[cell] = False
    return instance("triangle", mask, inst.rules)


def hex_rhombus_without_a_cell():
    """Straight trihexes on a 4x4 rhombus of hexagons without (0, 1): 15
    cells, but the three-colouring that every straight trihex covers once
    of each colour is unbalanced."""
    mask = np.ones((4, 4), dtype=bool)
    mask[0, 1] = False
    return instance("hex", mask, [free(grid_piece_set("hex", "trihexes")[0])])


def cube_without_two_black_cells():
    """Dicubes in a 2x3x3 box without two cells of one colour: even area,
    unbalanced chessboard colouring in 3D."""
    mask = np.ones((2, 3, 3), dtype=bool)
    mask[0, 0, 0] = mask[1, 1, 0] = False
    return instance("cube", mask, [free(grid_piece_set("cube", "dicube")[0])])


@pytest.mark.parametrize("make", [triangle_hexagon_missing_two_ups, hex_rhombus_without_a_cell,
                                  cube_without_two_black_cells])
def test_untileable_boards_get_a_certificate_that_checks(make):
    inst = make()
    assert inst.board.area % inst.rules[0].piece.size == 0 or make is hex_rhombus_without_a_cell
    assert not oracle_tilings(inst)
    cert = lp_certificate(inst, generate_placements(inst))
    assert cert is not None and cert.total > 0
    assert all(inst.board.is_open(*cell) for cell in cert.weights)
    assert_checks_and_damage_refused(inst, cert)


def test_the_soma_cube_and_a_tileable_hexagon_get_none():
    soma = instance("cube", np.ones((3, 3, 3)), [PieceRule(p, "free", 1, 1) for p in grid_piece_set("cube", "soma")])
    placements = generate_placements(soma)
    assert lp_certificate(soma, placements) is None and modular_certificate(soma, placements) is None


def test_a_weight_out_of_the_grid_is_refused_in_json():
    inst = cube_without_two_black_cells()
    cert = lp_certificate(inst, generate_placements(inst))
    data = cert.to_json()
    assert all(len(item) == 4 for item in data["weights"])  # [layer, row, col, weight]
    data["weights"][0] = data["weights"][0][1:]  # a planar cell on a cube board
    bad = Certificate.from_json(data)
    with pytest.raises(CertificateError):
        check_certificate(inst, bad)


SETS = {"triangle": ["moniamond", "diamond", "triamond", "tetriamonds", "tetriamonds-one-sided"],
        "hex": ["monohex", "dihex", "trihexes"], "cube": ["monocube", "dicube", "tricubes"]}
ORIENTS = {"triangle": ["free", "one-sided", "fixed"], "hex": ["free", "one-sided", "fixed"],
           "cube": ["free", "mirror", "fixed"]}


@st.composite
def instances(draw, grid):
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 3))) if grid == "cube" else \
        (draw(st.integers(1, 4)), draw(st.integers(2, 5)))
    size = int(np.prod(shape))
    mask = np.array(draw(st.lists(st.sampled_from([True, True, True, False]), min_size=size, max_size=size)),
                    dtype=bool).reshape(shape)
    assume(mask.sum() >= 2)
    pool = [p for name in SETS[grid] for p in grid_piece_set(grid, name)]
    chosen = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=3, unique_by=lambda p: p.name))
    rules = []
    for p in chosen:
        lo, hi = draw(st.sampled_from([(0, INF), (0, INF), (1, INF), (0, 1), (1, 1), (0, 2)]))
        rules.append(PieceRule(p, draw(st.sampled_from(ORIENTS[grid])), lo, hi))
    return instance(grid, mask, rules)


@pytest.mark.parametrize("grid", ["triangle", "hex", "cube"])
def test_certificates_only_when_the_oracle_finds_no_tiling(grid):
    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(instances(grid))
    def run(inst):
        # the checker puts pieces down itself: the same placements as the oracle's
        assert checker_placements(inst) == oracle_placements(inst)
        placements = generate_placements(inst)
        if len(placements) == 0:
            return
        cert = lp_certificate(inst, placements) or modular_certificate(inst, placements)
        if cert is None:
            return
        try:
            truth = oracle_tilings(inst)
        except TooHard:
            return
        assert not truth, f"a certificate for a tileable {grid} board"
        assert_checks_and_damage_refused(inst, cert)

    run()
