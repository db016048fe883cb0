"""The grids (issue 17): triangle, hex and cube next to the square one.

Known answers: the piece counts (OEIS), MacMahon's lozenge tilings of a
hexagon, the Soma cube (240 classes, 11,520 tilings), the solid pentominoes
in boxes (12 in 2x3x10, 264 in 2x5x6: the classic published counts)."""

from fractions import Fraction

import numpy as np
import pytest

from tilesat import Board, generate_placements, parse_instance, solve, verify_tiling
from tilesat.questions.count import count_tilings, iter_tilings_by
from tilesat.errors import TilesatError
from tilesat.model.grids import GRIDS, get_grid
from tilesat.model.grids.triangle import from_abc
from tilesat.model.instance import format_instance
from tilesat.certify.oracle import board_maps, brute_force_tilings, orbit_count
from tilesat.model.pieces import free_polyforms, grid_piece_set
from tilesat.model.symmetry import symmetry_group


@pytest.mark.parametrize("name,order,rotations", [("square", 8, 4), ("triangle", 12, 6), ("hex", 12, 6),
                                                  ("cube", 48, 24)])
def test_symmetry_groups(name, order, rotations):
    grid = get_grid(name)
    maps = grid.symmetries()
    assert len(maps) == order and grid.rotations == rotations
    cells = [(0, 0), (0, 1), (1, 1), (2, 3), (-1, 2)] if grid.dims == 2 else [(0, 0, 0), (1, 2, 3), (0, 1, -2)]
    images = {tuple(f(c) for c in cells) for f in maps}
    assert len(images) == order  # all different
    assert tuple(maps[0](c) for c in cells) == tuple(cells)  # the identity first
    for f in maps:  # each keeps adjacency
        for c in cells:
            assert {f(n) for n in grid.neighbours(c)} == set(grid.neighbours(f(c)))
    for f in maps:  # a group: closed under composition
        for g in maps:
            assert tuple(f(g(c)) for c in cells) in images


def _plane_orientation(grid, f):
    """The sign of the map's determinant, from the cells' drawn centres."""
    cells = [(0, 0), (0, 1), (1, 1)] if grid.name != "triangle" else [(0, 0), (0, 2), (2, 2)]
    centre = [np.mean(grid.cell_polygon(c), axis=0) for c in cells]
    image = [np.mean(grid.cell_polygon(f(c)), axis=0) for c in cells]

    def cross(p):
        (ax, ay), (bx, by), (cx, cy) = p
        return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)

    return np.sign(cross(centre)) * np.sign(cross(image))


@pytest.mark.parametrize("name", ["square", "triangle", "hex"])
def test_rotations_come_first_and_keep_orientation(name):
    grid = get_grid(name)
    signs = [_plane_orientation(grid, f) for f in grid.symmetries()]
    assert signs == [1] * grid.rotations + [-1] * (len(signs) - grid.rotations)


@pytest.mark.parametrize("name", ["triangle", "hex"])
def test_neighbours_share_an_edge_in_the_drawing(name):
    grid = get_grid(name)
    for cell in [(0, 0), (0, 1), (3, 4), (2, 5)]:
        corners = {tuple(np.round(p, 6)) for p in grid.cell_polygon(cell)}
        for n in grid.neighbours(cell):
            assert len(corners & {tuple(np.round(p, 6)) for p in grid.cell_polygon(n)}) == 2


@pytest.mark.parametrize("grid,mode,counts", [
    ("triangle", "free", [1, 1, 1, 3, 4, 12, 24]),  # OEIS A000577
    ("triangle", "one-sided", [1, 1, 1, 4, 6, 19, 43]),  # A006534
    ("hex", "free", [1, 1, 3, 7, 22]),  # A000228
    ("hex", "one-sided", [1, 1, 3, 10, 33]),  # A006535
    ("cube", "free", [1, 1, 2, 8, 29]),  # rotations only: A000162
    ("cube", "mirror", [1, 1, 2, 7, 23]),  # with reflections: A038119
])
def test_enumerated_piece_counts(grid, mode, counts):
    assert [len(free_polyforms(grid, n, mode)) for n in range(1, len(counts) + 1)] == counts


@pytest.mark.parametrize("grid,name,count", [
    ("triangle", "hexiamonds", 12), ("triangle", "heptiamonds", 24), ("triangle", "hexiamonds-one-sided", 19),
    ("hex", "pentahexes", 22), ("hex", "tetrahexes-one-sided", 10), ("cube", "tetracubes", 8),
    ("cube", "pentacubes", 29), ("cube", "soma", 7), ("cube", "solid-pentominoes", 12),
])
def test_sets(grid, name, count):
    members = grid_piece_set(grid, name)
    assert len(members) == count and len({p.name for p in members}) == count
    assert all(p.grid == grid and p.is_connected() for p in members)


def test_soma_pieces_are_the_tetracubes_but_the_line_and_square_plus_the_v():
    soma = grid_piece_set("cube", "soma")
    assert sorted(p.size for p in soma) == [3, 4, 4, 4, 4, 4, 4]
    tetra = {min(t) for t in (p.orientations("free") for p in grid_piece_set("cube", "tetracubes"))}
    four = [min(p.orientations("free")) for p in soma if p.size == 4]
    assert len(set(four)) == 6 and set(four) <= tetra
    flat = {min(p.orientations("free")) for p in grid_piece_set("cube", "tetracubes")
            if len({z for z, _, _ in p.cells}) == 1 and len({r for _, r, _ in p.cells}) > 1}
    assert len(set(four) - flat) == 3  # the two screws and the branch


LAYOUTS = {
    "triangle": "grid: triangle\npieces: diamond\n ^v^v^\n^v^v^v^\nv^v^v^v\n v^v^v\n",
    "hex": "grid: hex\npieces: dihex, monohex:1\n  . . .\n . . . .\n. . . . .\n . . # .\n  . . .\n",
    "cube": "grid: cube\npieces: soma:1\n...\n...\n...\n\n...\n...\n...\n--\n...\n...\n...\n",
}


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_layouts_round_trip(name):
    inst = parse_instance(LAYOUTS[name])
    assert inst.board.grid == name
    again = parse_instance(format_instance(inst))
    assert again.board.grid == name and np.array_equal(again.board.open, inst.board.open)
    assert [r.spec() for r in again.rules] == [r.spec() for r in inst.rules]


def test_layout_shapes():
    assert parse_instance(LAYOUTS["triangle"]).board.area == 24
    hexagon = parse_instance(LAYOUTS["hex"]).board
    assert hexagon.area == 18 and hexagon.shape == (5, 5)
    cube = parse_instance(LAYOUTS["cube"]).board
    assert cube.shape == (3, 3, 3) and cube.area == 27 and cube.cell(26) == (2, 2, 2) and cube.index((1, 0, 2)) == 11


@pytest.mark.parametrize("text,words", [
    ("grid: triangle\npieces: diamond\n^^\n", ":3: character 2 should be v"),
    ("grid: hex\npieces: dihex\n. .\n. .\n", ":4: the cell at column 1 is between two hexagons"),
    ("grid: cube\npieces: soma\n...\n...\n\n...\n", ":6: this layer has 1 rows"),
    ("grid: cube\npieces: soma\n...\n...\n\n..\n..\n", ":6: row has 2 cells"),
    ("grid: hex\nwrap: rows\npieces: dihex\n. .\n", "only square boards wrap"),
    ("grid: cube\npieces: Q9\n...\n", "unknown piece 'Q9' on the cube grid"),
    ("grid: cube\npieces: soma/mirror\n...\n", None),
    ("grid: hex\npieces: dihex/mirror\n. .\n", "bad orientation 'mirror'"),
    ("grid: octagon\npieces: I2\n..\n", "unknown grid 'octagon'"),
    ("grid: hex\npieces: dihex\n. .\npieces: dihex\n", "after the grid"),
])
def test_layout_errors_are_one_line(text, words):
    if words is None:
        assert parse_instance(text).rules[0].orient == "mirror"
        return
    with pytest.raises(TilesatError) as e:
        parse_instance(text)
    assert words in str(e.value) and "\n" not in str(e.value)


def test_custom_shapes_on_every_grid():
    tri = parse_instance("grid: triangle\nshape: W ###\npieces: W\n^v^v^v\n")
    assert [len(t.cells) for t in solve(tri).tilings[0]] == [3, 3]
    hexa = parse_instance("grid: hex\nshape: Q ##/#.\npieces: Q\n. .\n . .\n")  # no room: 4 cells, pieces of 3
    assert solve(hexa).verdict == "none"
    cube = parse_instance("grid: cube\nshape: S ##|#.\npieces: S\n..\n..\n--\n..\n..\n")
    assert cube.rules[0].piece.cells == ((0, 0, 0), (0, 0, 1), (1, 0, 0))
    assert solve(cube).verdict == "none"  # 8 cells, pieces of 3


def test_triangle_placements_keep_up_triangles_up():
    inst = parse_instance("grid: triangle\npieces: moniamond\n^v^v\nv^v^\n")
    P = generate_placements(inst)
    assert len(P) == 8  # one per triangle, whatever its direction
    inst = parse_instance("grid: triangle\npieces: triamond/fixed\n^v^v^\n")
    cells = [inst.board.cells(P2) for P2 in (generate_placements(inst).cells.reshape(-1, 3))]
    assert cells == [[(0, 0), (0, 1), (0, 2)], [(0, 2), (0, 3), (0, 4)]]  # not at column 1: that is v^v


def _hexagon(a, b, c, lo=None, hi=None):
    """The hexagon of sides a, b, c (abc coordinates in strips), as an instance of diamonds."""
    cells = {from_abc((x, y, z)) for x in range(lo[0], hi[0] + 1) for y in range(lo[1], hi[1] + 1)
             for z in range(lo[2], hi[2] + 1) if x + y + z in (1, 2)}
    r0, c0 = min(r for r, _ in cells), min(c for _, c in cells)
    c0 -= (r0 + c0) % 2
    mask = np.zeros((1 + max(r for r, _ in cells) - r0, 2 + max(c for _, c in cells) - c0), dtype=bool)
    for r, c in cells:
        mask[r - r0, c - c0] = True
    return parse_instance("grid: triangle\npieces: diamond\n" + "\n".join(get_grid("triangle").format_layout(mask)))


def macmahon(a, b, c):
    p = Fraction(1)
    for i in range(1, a + 1):
        for j in range(1, b + 1):
            for k in range(1, c + 1):
                p *= Fraction(i + j + k - 1, i + j + k - 2)
    return int(p)


@pytest.mark.parametrize("a,b,c,lo,hi", [(2, 2, 2, (-1, -1, -1), (2, 2, 2)), (3, 3, 3, (-2, -2, -2), (3, 3, 3)),
                                         (1, 2, 3, (0, -1, -2), (2, 2, 2))])
def test_lozenge_tilings_of_a_hexagon_macmahon(a, b, c, lo, hi):
    inst = _hexagon(a, b, c, lo, hi)
    assert inst.board.area == 2 * (a * b + b * c + c * a)
    result = count_tilings(inst, "dlx")
    assert result.count == macmahon(a, b, c)  # 20, 980, 10


@pytest.mark.parametrize("n,classes", [(2, 6), (3, 113)])
def test_lozenge_tilings_of_a_regular_hexagon_up_to_symmetry(n, classes):
    # Richard Guy's counts of calisson (lozenge) packings of a hexagon of side n, not counting
    # rotations and reflections as different: 6 for n=2, 113 for n=3 (OEIS A066931)
    inst = _hexagon(n, n, n, (1 - n,) * 3, (n,) * 3)
    result = count_tilings(inst, "dlx", up_to_symmetry=True)
    assert (result.count, result.up_to_symmetry, len(result.group)) == (macmahon(n, n, n), classes, 12)


def test_soma_cube_240_classes_11520_tilings():
    result = count_tilings(parse_instance(LAYOUTS["cube"]), "dlx", up_to_symmetry=True)
    assert (result.count, result.up_to_symmetry, len(result.group)) == (11520, 240, 48)


def _box(layers, rows, cols, pieces):
    layer = "\n".join(["." * cols] * rows)
    return parse_instance(f"grid: cube\npieces: {pieces}\n" + "\n--\n".join([layer] * layers) + "\n")


@pytest.mark.slow
@pytest.mark.parametrize("shape,classes", [((2, 3, 10), 12), ((2, 5, 6), 264)])
def test_solid_pentominoes_in_boxes(shape, classes):
    # the 12 pentominoes as flat pentacubes: 12 ways in 2x3x10, 264 in 2x5x6, up to the box's 8 symmetries
    result = count_tilings(_box(*shape, "solid-pentominoes:1"), "dlx", up_to_symmetry=True)
    assert (result.up_to_symmetry, result.count) == (classes, 8 * classes)


def _oracle_args(inst):
    pieces = [(r.name, r.piece.cells, r.orient, r.min, r.max) for r in inst.rules]
    return inst.board.cells(inst.board.open_cells), "none", pieces


@pytest.mark.parametrize("text", [
    LAYOUTS["triangle"],
    "grid: triangle\npieces: triamond, diamond:1..\n^v^v^v\nv^v^v^\n",
    "grid: triangle\npieces: tetriamonds/one-sided\n^v^v^v^v\nv^v^v^v^\n",
    "grid: hex\npieces: trihexes\n. . . .\n . . . .\n  . . . .\n",
    "grid: hex\npieces: dihex, monohex:0..2\n  . . .\n . . . .\n. . . . .\n . . # .\n  . . .\n",
    "grid: cube\npieces: tricubes\n..\n..\n..\n--\n..\n..\n..\n",
    "grid: cube\npieces: L/fixed, V/mirror\n...\n..#\n--\n.#.\n...\n",
])
def test_counts_and_classes_against_the_brute_force(text):
    inst = parse_instance(text)
    args = _oracle_args(inst)
    lattice = inst.board.grid
    truth = brute_force_tilings(*args, lattice=lattice)
    classes = orbit_count(truth, board_maps(*args, lattice=lattice))
    P = generate_placements(inst)
    covering, _ = brute_force_tilings(*args, cap="check", lattice=lattice)
    assert len(P) == len(set().union(*covering.values()))  # the same candidate tiles
    assert len(symmetry_group(P)) == len(board_maps(*args, lattice=lattice))
    method = "dlx" if all(r.max in (1, float("inf")) and r.min in (0, r.max) for r in inst.rules) else "blocking"
    result = count_tilings(inst, method, up_to_symmetry=True)
    assert (result.count, result.up_to_symmetry) == (len(truth), classes)
    listed = {frozenset((t.piece, frozenset(t.cells)) for t in tiling) for tiling in iter_tilings_by(inst, "blocking")}
    assert listed == truth


def test_every_command_path_on_the_cube(tmp_path):
    from typer.testing import CliRunner

    from tilesat.cli import app

    path = tmp_path / "soma.txt"
    path.write_text(LAYOUTS["cube"])
    runner = CliRunner()
    res = runner.invoke(app, ["solve", str(path)])
    assert res.exit_code == 0 and "--" in res.output
    res = runner.invoke(app, ["count", str(path), "--method", "frontier"])
    assert res.exit_code == 2 and "square boards only" in res.output
    res = runner.invoke(app, ["count", str(path), "--method", "native"])
    assert res.exit_code == 2 and "square boards only" in res.output


def test_board_cells_and_indices_agree():
    for name in GRIDS:
        shape = (2, 3, 4) if get_grid(name).dims == 3 else (3, 4)
        board = Board(np.ones(shape, dtype=bool), "none", name)
        for i in range(board.ncells):
            assert board.index(board.cell(i)) == i
        assert board.cells(np.arange(board.ncells)) == [board.cell(i) for i in range(board.ncells)]
        assert len(board.regions()) == 1


def test_verify_rejects_a_mirror_image_on_the_cube():
    # 'free' on the cube turns pieces in space only: a screw is not its mirror image
    inst = parse_instance("grid: cube\npieces: A:0..2, B:0..2\n..\n..\n--\n..\n..\n")
    tiling = solve(inst).tilings[0]
    verify_tiling(inst, tiling)
    swapped = type(tiling)(tuple(type(t)("A" if t.piece == "B" else "B", t.cells) for t in tiling))
    from tilesat.certify.verify import problems
    assert any("not an allowed orientation" in p for p in problems(inst, swapped))
    mirror = parse_instance("grid: cube\npieces: A/mirror:0..2\n..\n..\n--\n..\n..\n")
    assert not problems(mirror, type(tiling)(tuple(type(t)("A", t.cells) for t in tiling)))


def test_export_names_cells_and_blocks_tilings_on_the_cube(tmp_path):
    import io

    from tilesat.sat.dimacs import blocking_clause, write_dimacs
    from tilesat.sat.formula import compile_formula

    inst = parse_instance(LAYOUTS["cube"])
    tiling = solve(inst).tilings[0]
    P = generate_placements(inst)
    clause = blocking_clause(P, tiling)
    assert len(clause) == 7
    assert sorted(P.piece_of(-v - 1).name for v in clause) == sorted(t.piece for t in tiling)
    out = io.StringIO()
    write_dimacs(compile_formula(P), out)
    first = next(line for line in out.getvalue().splitlines() if line.startswith("c placement "))
    assert first.split()[4:] == [",".join(map(str, c)) for c in P.coords_of(0)]
    assert all(len(c.split(",")) == 3 for c in first.split()[4:])


def test_check_unique_grades_and_explains_on_the_cube(tmp_path):
    from typer.testing import CliRunner

    from tilesat.cli import app

    path = tmp_path / "vl.txt"
    path.write_text("grid: cube\npieces: V:1, L:1\n...\n#..\n--\n###\n#..\n")
    res = CliRunner().invoke(app, ["check-unique", str(path), "--explain"])
    assert res.exit_code == 0, res.output
    assert "unique" in res.output and "cell (1,1,2) can only be covered by V" in res.output
