"""Pictures and terminal drawings on every grid (triangle, hex, cube; the
square through the same grid-free drawing), and `tilesat pieces`.

The pictures are checked against the grids' neighbours, not against their
own geometry: a tile is one path with one polygon per cell, neighbouring
tiles get different colours, and the number of thick border segments is
what the adjacency says it must be (every covered cell's sides, minus its
sides shared with its own tile, minus each side shared by two tiles once)."""

import re
import xml.etree.ElementTree as ET

import matplotlib.image
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console
from typer.testing import CliRunner

from tilesat import Board, Instance, Tiling, parse_instance, parse_pieces, solve, verify_tiling
from tilesat.showing.cell_pictures import board_scene, drawn_cells, grid_raster, grid_svg
from tilesat.cli import app
from tilesat.showing.pictures import PALETTE, save_picture, tiling_svg, weights_svg
from tilesat.model.pieces import grid_piece_set, piece_set
from tilesat.showing.render import (colour_tiles, piece_picture, plain_rows, rich_tiling, tile_labels, tile_neighbours,
                            triangle_outline, weight_rows)

SVG = "{http://www.w3.org/2000/svg}"
runner = CliRunner()

SOMA = "grid: cube\npieces: soma:1\n" + "\n--\n".join(["...\n...\n..."] * 3) + "\n"
HEXIAMONDS = "grid: triangle\npieces: hexiamonds:1\n" + "".join(" " * r + "v^" * 6 + "\n" for r in range(6))
TRIHEX = "grid: hex\npieces: trihexes, dihex\n. . . #\n . . . .\n  . . . .\n"
TRIANGLE_HOLE = "grid: triangle\npieces: triamond, diamond\n^v^v^v\nv^#^v^\n^v^v^v\n"
INSTANCES = {"cube": SOMA, "triangle": HEXIAMONDS, "hex": TRIHEX, "triangle-hole": TRIANGLE_HOLE}
#: sides of a cell as drawn (a cube cell: the square of its layer's panel)
SIDES = {"square": 4, "triangle": 3, "hex": 6, "cube": 4}


def tiled(text):
    inst = parse_instance(text)
    result = solve(inst)
    assert result.verdict == "solved"
    return inst, result.tilings[0]


def drawn_neighbours(board, cell):
    """The grid's neighbours of a cell that share a side in the picture
    (on the cube grid: within its layer's panel)."""
    nbs = board.lattice.neighbours(cell)
    return [n for n in nbs if len(n) == 2 or n[0] == cell[0]]


def expected_borders(inst, tiling) -> int:
    owner = tiling.owner()
    side = SIDES[inst.board.grid]
    total = 0
    for cell, i in owner.items():
        same = sum(1 for n in drawn_neighbours(inst.board, cell) if owner.get(n) == i)
        other = sum(1 for n in drawn_neighbours(inst.board, cell) if owner.get(n, i) != i)
        total += side - same - other / 2  # a side between two tiles is counted from both
    return int(total)


def subpaths(d: str) -> int:
    return len(re.findall(r"[Mm]", d))


def check_svg(root, inst, tilings):
    groups = [g for g in root.iter(f"{SVG}g") if g.get("class") == "tiling"]
    assert len(groups) == len(tilings)
    blocked_drawn = [c for c in drawn_cells(inst.board) if not inst.board.open[c]]
    for group, tiling in zip(groups, tilings):
        paths = list(group.iter(f"{SVG}path"))
        tiles = [p for p in paths if p.get("class") == "tile"]
        assert [p.get("data-piece") for p in tiles] == [t.piece for t in tiling]
        assert [subpaths(p.get("d")) for p in tiles] == [len(t.cells) for t in tiling]  # a polygon per cell
        fills = [p.get("fill") for p in tiles]
        assert all(f in PALETTE for f in fills)
        for i, nbs in enumerate(tile_neighbours(inst, tiling)):
            assert all(fills[i] != fills[j] for j in nbs)
        (blocked,) = [p for p in paths if p.get("class") == "blocked"]
        assert subpaths(blocked.get("d") or "") == len(blocked_drawn)
        (borders,) = [p for p in paths if p.get("class") == "borders"]
        assert subpaths(borders.get("d") or "") == expected_borders(inst, tiling)


@pytest.mark.parametrize("name", sorted(INSTANCES))
def test_svg_of_each_grid(tmp_path, name):
    inst, tiling = tiled(INSTANCES[name])
    path = tmp_path / "t.svg"
    tiling_svg(inst, [tiling, tiling], marked={tiling.tiles[0].cells[0]}).save_svg(str(path))
    root = ET.parse(path).getroot()  # well-formed XML
    check_svg(root, inst, [tiling, tiling])
    dots = [p for p in root.iter(f"{SVG}path") if p.get("class") == "marked"]
    assert len(dots) == 2 and all(subpaths(p.get("d")) == 1 for p in dots)
    if inst.board.grid == "cube":
        labels = [t.text for t in root.iter(f"{SVG}text")]
        assert labels == ["z = 0", "z = 1", "z = 2", "3D"] * 2
        faces = [p for p in root.iter(f"{SVG}path") if p.get("class") == "face"]
        # the isometric view of the full cube shows 3 x 9 faces, each of a tile
        assert len(faces) == 2 * 27 and {f.get("data-piece") for f in faces} <= {t.piece for t in tiling}


def test_square_board_drawn_grid_free_agrees():
    """The grid-free drawing on a square board: the same tiles, colours and border count."""
    inst = parse_instance("pieces: L4\n" + "........\n" * 4)
    tiling = solve(inst).tilings[0]
    check_svg(ET.fromstring(grid_svg(inst, [tiling]).as_svg()), inst, [tiling])
    square = ET.fromstring(tiling_svg(inst, [tiling]).as_svg())
    generic = ET.fromstring(grid_svg(inst, [tiling]).as_svg())
    fills = [[p.get("fill") for p in root.iter(f"{SVG}path") if p.get("class") == "tile"] for root in (square, generic)]
    assert fills[0] == fills[1]


def test_triangle_and_hex_rows_without_cells_are_not_drawn():
    inst = parse_instance("grid: hex\npieces: monohex\n  . .\n . . .\n. .\n")
    scene = board_scene(inst.board)
    assert set(scene.polygons) == set(inst.board.cells(inst.board.open_cells))  # no cell outside the rows' spans
    inst = parse_instance(TRIANGLE_HOLE)
    assert len(board_scene(inst.board).polygons) == inst.board.ncells  # the hole inside is drawn (dark)


@pytest.mark.parametrize("name", ["cube", "triangle", "hex"])
def test_png_each_tile_in_its_colour(tmp_path, name):
    inst, tiling = tiled(INSTANCES[name])
    path = tmp_path / "t.png"
    save_picture(inst, [tiling], path)
    img = matplotlib.image.imread(path)[..., :3]
    scene = board_scene(inst.board)
    h, w = img.shape[:2]  # 24 pixels a unit, 0.2 units of margin around
    assert abs(h - (scene.height + 0.4) * 24) <= 1 and abs(w - (scene.width + 0.4) * 24) <= 1
    sx, sy = w / (scene.width + 0.4), h / (scene.height + 0.4)
    # each cell's centre has its tile's colour
    colours = colour_tiles(inst, tiling, len(PALETTE))
    for i, tile in enumerate(tiling.tiles):
        want = np.array([int(PALETTE[colours[i]][k : k + 2], 16) for k in (1, 3, 5)]) / 255
        for cell in tile.cells:
            poly = scene.polygons[cell]
            x = sum(p[0] for p in poly) / len(poly)
            y = sum(p[1] for p in poly) / len(poly)
            got = img[int((y + 0.2) * sy), int((x + 0.2) * sx)]
            assert np.allclose(got, want, atol=0.02), (cell, got, want)


def check_text(inst, tiling, lines):
    """The letters of the text, read in reading order (layers, rows, columns),
    are the tiles' labels of the open cells in row-major order; the rest is
    the grid's empty layout."""
    board = inst.board
    owner = tiling.owner()
    labels = tile_labels(inst, tiling)
    want = [labels[owner[c]] if c in owner else "." for c in board.cells(board.open_cells)]
    got = [ch for line in lines if line != "--" for ch in line if ch not in " #"]
    assert got == want
    blank = board.lattice.format_layout(board.open)
    assert [re.sub(r"[^ #\-\n]", ".", line) for line in lines] == [re.sub(r"[^ #\-\n]", ".", line) for line in blank]


@pytest.mark.parametrize("name", sorted(INSTANCES))
def test_terminal_text_of_each_grid(name):
    inst, tiling = tiled(INSTANCES[name])
    lines = plain_rows(inst, tiling)
    check_text(inst, tiling, lines)
    console = Console(width=200, record=True, force_terminal=True, color_system="truecolor")
    console.print(rich_tiling(inst, tiling))
    shown = console.export_text(clear=False).rstrip("\n").splitlines()
    if inst.board.grid == "cube":  # layers side by side under their names
        assert shown[0].split() == ["z", "=", "0", "z", "=", "1", "z", "=", "2"]
        layers = [lines[4 * z : 4 * z + 3] for z in range(3)]
        assert [line.split() for line in shown[1:]] == [[layer[r] for layer in layers] for r in range(3)]
    else:
        assert [line.rstrip() for line in shown] == lines
    assert "\x1b[" in console.export_text(styles=True)  # in colour


def test_empty_open_cells_of_a_packing():
    inst, tiling = tiled(HEXIAMONDS.replace("hexiamonds:1", "hexiamonds:0..1"))
    packing = Tiling(tiling.tiles[:5])
    verify_tiling(inst, packing, partial=True)
    check_text(inst, packing, plain_rows(inst, packing))
    check_svg(ET.fromstring(tiling_svg(inst, [packing]).as_svg()), inst, [packing])


# -- random small tilings on every grid ------------------------------------------

#: each with the one-cell piece, so every board has a tiling
SMALL_SETS = {"triangle": ["moniamond, diamond", "moniamond, triamond", "moniamond:0..2, diamond, triamond"],
              "hex": ["monohex, dihex", "monohex, trihexes", "monohex:0..2, dihex, trihexes"],
              "cube": ["monocube, dicube", "monocube, tricubes", "monocube:0..2, dicube, tricubes"],
              "square": ["I1, I2", "I1, L3", "I1:0..2, I2, L3"]}


@st.composite
def small_tilings(draw):
    grid = draw(st.sampled_from(sorted(SMALL_SETS)))
    shape = (draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 3))) if grid == "cube" else \
        (draw(st.integers(1, 4)), draw(st.integers(1, 5)))
    mask = np.array(draw(st.lists(st.booleans(), min_size=int(np.prod(shape)), max_size=int(np.prod(shape)))))
    mask = mask.reshape(shape) | (np.arange(mask.size).reshape(shape) == 0)  # at least one open cell
    pieces = draw(st.sampled_from(SMALL_SETS[grid]))
    inst = Instance(Board(mask, grid=grid), parse_pieces(pieces, grid=grid))
    result = solve(inst)
    if result.verdict != "solved":
        return inst, None
    tiling = result.tilings[0]
    keep = draw(st.lists(st.booleans(), min_size=len(tiling), max_size=len(tiling)))
    if any(keep) and not all(keep):  # a packing: some open cells left empty
        tiling = Tiling(tuple(t for t, k in zip(tiling.tiles, keep) if k))
    return inst, tiling


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_tilings())
def test_random_tilings_drawn_on_every_grid(case):
    inst, tiling = case
    if tiling is None or not tiling.tiles:
        return
    verify_tiling(inst, tiling, partial=True)
    check_svg(ET.fromstring(grid_svg(inst, [tiling]).as_svg()), inst, [tiling])
    check_text(inst, tiling, plain_rows(inst, tiling))
    if not inst.board.is_square:
        check_svg(ET.fromstring(tiling_svg(inst, [tiling]).as_svg()), inst, [tiling])
        assert grid_raster(inst, [tiling], cell=6).ndim == 3


# -- certificates' weights on other grids ----------------------------------------

def test_weights_on_other_grids():
    inst = parse_instance(TRIHEX)
    cells = inst.board.cells(inst.board.open_cells)
    weights = {c: (i % 5) - 2 for i, c in enumerate(cells)}
    root = ET.fromstring(weights_svg(inst, weights).as_svg())
    drawn = [e.get("data-weight") for e in root.iter() if e.get("data-weight") is not None]
    assert drawn == [str(weights[c]) for c in drawn_cells(inst.board) if inst.board.open[c]]
    rows = weight_rows(inst, weights)
    assert [int(w) for line in rows for w in line.replace("#", " ").split()] == [weights[c] for c in cells]


# -- pieces drawn on their own -------------------------------------------------------

def test_triangle_outline_draws_each_outer_side():
    """Two characters per slanted outer side (its own), a level side's two
    middle columns '_' (and its ends unless a slanted side's character wins)."""
    for piece in grid_piece_set("triangle", "hexiamonds") + grid_piece_set("triangle", "heptiamonds"):
        cells = set(piece.cells)
        slanted = sum(1 for r, c in cells for n in ((r, c - 1), (r, c + 1)) if n not in cells)
        level = sum(1 for r, c in cells if ((r + 1, c) if (r + c) % 2 == 0 else (r - 1, c)) not in cells)
        drawing = triangle_outline(piece.cells)
        assert sum(line.count("/") + line.count("\\") for line in drawing) == 2 * slanted
        assert 2 * level <= sum(line.count("_") for line in drawing) <= 4 * level
        assert set("".join(drawing)) <= set(" /\\_")


@pytest.mark.parametrize("grid,name", [("square", "pentominoes"), ("hex", "pentahexes"), ("cube", "soma")])
def test_piece_pictures_have_two_blocks_per_cell(grid, name):
    pieces = piece_set(name) if grid == "square" else grid_piece_set(grid, name)
    for p in pieces:
        assert sum(line.count("\u2588") for line in piece_picture(p)) == 2 * p.size


def test_hex_piece_rows_shift_half_a_cell():
    for p in grid_piece_set("hex", "pentahexes"):
        low = min(2 * c + r for r, c in p.cells)
        blocks = {(y, x) for y, line in enumerate(piece_picture(p)) for x, ch in enumerate(line) if ch == "\u2588"}
        assert blocks == {(r, 2 * c + r - low + k) for r, c in p.cells for k in (0, 1)}


@pytest.mark.parametrize("args,must", [
    (["pieces", "hexiamonds", "--grid", "triangle"], ["tri6_00 (6)", "tri6_11 (6)", "/", "\\", "_"]),
    (["pieces", "soma", "--grid", "cube"], ["V (3)", "P (4)", "\u2588\u2588"]),
    (["pieces", "trihexes", "--grid", "hex"], ["hex3_0 (3)", "hex3_2 (3)"]),
    (["pieces", "--grid", "hex"], ["hex5_21 (5)"]),
])
def test_pieces_command_on_every_grid(args, must):
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    assert all(m in res.output for m in must)


@pytest.mark.parametrize("args,says", [
    (["pieces", "hexiamonds"], "unknown piece or set 'hexiamonds' on the square grid"),
    (["pieces", "--grid", "oct"], "unknown grid 'oct'"),
])
def test_pieces_command_errors(args, says):
    res = runner.invoke(app, args)
    assert res.exit_code == 2 and says in res.output and "Traceback" not in res.output


# -- cells that may stay empty ('+') and coloured cells: marked in every picture ------------

#: per grid: a board with '+' cells, coloured cells and optional coloured ones, with tilings
#: that leave a '+' cell empty
MARKED = {"square": "colours: A:A, B:B\nshape: D #A\npieces: D, I2\n..+A\nAB+.\n",
          "triangle": "grid: triangle\npieces: diamond\n ^v+v^\n^vAv^v^\nv^v^v^v\n v^+^v\n",
          "hex": "grid: hex\nshape: D #A\npieces: D, dihex\n . A + .\n. . a B\n",
          "cube": "grid: cube\npieces: dicube\n.+\nA.\n--\n..\na.\n"}


def _without_marks(inst):
    import dataclasses

    return dataclasses.replace(inst, board=dataclasses.replace(inst.board, optional=None, colour=None))


def _mark_pixels(inst, img, cell, at=(0.0, 0.0), reach=0.14):
    """The pixels of ``img`` (the PNG of ``inst``'s pictures, first panel) around the point
    ``at`` (units) from ``cell``'s centre: a square ``reach`` units either side."""
    board = inst.board
    if board.is_square:
        x, y, unit, margin = cell[1] + 0.5, cell[0] + 0.5, 24, 0.0
    else:
        poly = board_scene(board).polygons[cell]
        x, y, unit, margin = sum(p[0] for p in poly) / len(poly), sum(p[1] for p in poly) / len(poly), 24, 0.2
    px, py = (x + at[0] + margin) * unit, (y + at[1] + margin) * unit
    d = reach * unit
    return img[int(py - d) : int(py + d) + 1, int(px - d) : int(px + d) + 1].astype(int)


def _level_side(inst, cell) -> int:
    """A triangle's level side: 1 below its centre (pointing up), -1 above."""
    ys = sorted(y for _, y in board_scene(inst.board).polygons[cell])
    return 1 if abs(ys[1] - ys[2]) < 1e-9 else -1


@pytest.mark.parametrize("grid", list(MARKED))
def test_png_marks_cells_that_may_stay_empty_and_colours(grid):
    """A '+' cell and a coloured cell carry their letter in the PNG (where the SVG writes it:
    dark ink the unmarked board's picture has not there), a coloured cell no tile covers is
    tinted with its colour; on the board alone and in a tiling that leaves a '+' cell empty."""
    from tilesat.questions.count import iter_tilings_by
    from tilesat.showing.pictures import tiling_raster
    from tilesat.showing.style import mark_place, tint

    inst = parse_instance(MARKED[grid])
    plain = _without_marks(inst)
    chars = inst.board.cell_chars()
    assert {"+"} < set(chars.values()) and any(ch.isupper() for ch in chars.values())
    empty_one = next(t for t in iter_tilings_by(inst, "blocking", certificates=False)
                     if set(inst.board.cells(inst.board.optional_cells)) - set(t.owner()))
    size, dx, dy = mark_place(grid)
    ink_at = (dx, dy - size / 3)  # the middle of a letter standing on its baseline
    for tiling in (None, empty_one):
        marked_img = tiling_raster(inst, [tiling], cell=24)
        plain_img = tiling_raster(plain, [tiling], cell=24)
        assert marked_img.shape == plain_img.shape
        covered = set() if tiling is None else set(tiling.owner())
        for cell, ch in chars.items():
            mine, theirs = _mark_pixels(inst, marked_img, cell, ink_at), _mark_pixels(inst, plain_img, cell, ink_at)
            # the letter: ink the unmarked picture has not there
            assert (np.abs(theirs - mine).sum(-1) > 120).sum() >= 3, (grid, tiling is not None, cell, ch)
            # away from the letter: the upper left (a triangle: near its level side)
            away = (0.15, 0.16 if _level_side(inst, cell) > 0 else -0.05) if grid == "triangle" else (-0.2, -0.2)
            centre = _mark_pixels(inst, marked_img, cell, away, reach=0.0)
            if ch != "+" and cell not in covered:  # the colour's tint where no tile covers it
                want = [int(tint(int(inst.board.colour[cell]))[k : k + 2], 16) for k in (1, 3, 5)]
                assert (np.abs(centre - want) <= 2).all(), (grid, cell, centre[0, 0], want)
            elif cell not in covered:  # a '+' cell left empty: white under its mark
                assert (centre >= 250).all(), (grid, cell, centre[0, 0])
        if tiling is not None:
            assert any(cell not in covered for cell, ch in chars.items() if ch == "+")  # the case asked for


@pytest.mark.parametrize("grid", list(MARKED))
def test_svg_marks_and_tints_on_every_grid(grid):
    """The SVG's marks: one letter a marked cell (cube boards on their layer panels too), and a
    tint a coloured cell on the board alone."""
    inst = parse_instance(MARKED[grid])
    root = ET.fromstring(tiling_svg(inst, [None]).as_svg())
    letters = sorted(t.text for t in root.iter(f"{SVG}text") if t.get("class") in ("optional", "colour"))
    assert letters == sorted(inst.board.cell_chars().values())
    tints = [e for e in root.iter() if e.get("class") == "tint"]
    assert len(tints) == int((inst.board.colour > 0).sum())


@pytest.mark.parametrize("grid", list(MARKED))
def test_the_terminal_writes_plus_on_a_cell_left_empty(grid):
    """In colour as in the plain text: a cell that may stay empty, left empty, is a '+'."""
    from tilesat.questions.count import iter_tilings_by

    inst = parse_instance(MARKED[grid])
    optional = set(inst.board.cells(inst.board.optional_cells))
    tiling = next(t for t in iter_tilings_by(inst, "blocking", certificates=False) if optional - set(t.owner()))
    left = len(optional - set(tiling.owner()))
    console = Console(record=True, width=200, color_system="truecolor")
    console.print(rich_tiling(inst, tiling))
    shown = console.export_text()
    assert shown.count("+") == left == "".join(plain_rows(inst, tiling)).count("+"), shown
