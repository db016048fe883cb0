"""Pictures (SVG and PNG) and the puzzle generator."""

import xml.etree.ElementTree as ET
from pathlib import Path

import matplotlib.image
import numpy as np
import pytest
from typer.testing import CliRunner

from tilesat import Board, Instance, Tile, Tiling, check_unique, load_instance, parse_instance, parse_pieces, verify_tiling
from tilesat.cli import app
from tilesat.making.generate import generate_unique
from tilesat.showing.pictures import tiling_raster, tiling_svg
from tilesat.showing.render import tile_neighbours

INSTANCES = Path(__file__).resolve().parent.parent / "instances"
SVG = "{http://www.w3.org/2000/svg}"
runner = CliRunner()


@pytest.mark.parametrize("name", ["lpanel-12x12.txt", "pentomino-8x8-center.txt", "torus-x5-5x5.txt", "lpanel-4x8-multiple.txt"])
def test_svg_one_shape_per_tile_and_neighbours_differ(tmp_path, name):
    inst = load_instance(INSTANCES / name)
    tilings = check_unique(inst).tilings
    path = tmp_path / "t.svg"
    tiling_svg(inst, tilings).save_svg(str(path))
    root = ET.parse(path).getroot()  # well-formed XML
    groups = [g for g in root.iter(f"{SVG}g") if g.get("class") == "tiling"]
    assert len(groups) == len(tilings)
    for group, tiling in zip(groups, tilings):
        tiles = [p for p in group.iter(f"{SVG}path") if p.get("class") == "tile"]
        assert len(tiles) == len(tiling)
        assert [p.get("data-piece") for p in tiles] == [t.piece for t in tiling]
        fills = [p.get("fill") for p in tiles]
        for i, nbs in enumerate(tile_neighbours(inst, tiling)):
            assert all(fills[i] != fills[j] for j in nbs)
    if inst.board.wrap != "none":
        assert any(p.get("class") == "wrap" and p.get("d") for p in root.iter(f"{SVG}path"))


def test_png_size_and_content(tmp_path):
    inst = load_instance(INSTANCES / "lpanel-12x12.txt")
    out = tmp_path / "t.png"
    res = runner.invoke(app, ["check-unique", str(INSTANCES / "lpanel-12x12.txt"), "--png", str(out), "--svg", str(tmp_path / "t.svg")])
    assert res.exit_code == 0, res.output
    img = matplotlib.image.imread(out)
    assert img.shape[:2] == (12 * 24, 12 * 24)
    # a blocked cell is dark grey, an open cell's centre is a palette colour
    r, c = map(int, np.argwhere(~inst.board.open)[0])
    assert np.allclose(img[r * 24 + 12, c * 24 + 12, :3], 0x33 / 255, atol=0.01)
    res = runner.invoke(app, ["check-unique", str(INSTANCES / "lpanel-12x12.txt"), "--png", str(out)])
    assert res.exit_code == 2 and "exists; pass --force" in res.output


def test_png_of_two_tilings_side_by_side(tmp_path):
    out = tmp_path / "m.png"
    res = runner.invoke(app, ["check-unique", str(INSTANCES / "lpanel-4x8-multiple.txt"), "--png", str(out)])
    assert res.exit_code == 1
    head = round(1.6 * 16.8)  # the titles' strip: "tiling 1", "tiling 2"
    assert matplotlib.image.imread(out).shape[:2] == (4 * 24 + head, 2 * 8 * 24 + 2 * 24)


def test_png_of_a_512x512_board():
    n = 512
    inst = Instance(Board.rectangle(n, n), parse_pieces("I2"))
    tiling = Tiling(tuple(Tile("I2", ((r, c), (r, c + 1))) for r in range(n) for c in range(0, n, 2)))
    verify_tiling(inst, tiling)
    img = tiling_raster(inst, [tiling])
    assert img.shape == (n * 4, n * 4, 3) and img.dtype == np.uint8
    assert (img == 0).any() and (img != 0).any()


@pytest.mark.parametrize("rows,cols,pieces,seed", [(6, 6, "L4", 1), (8, 8, "L4", 2), (12, 12, "L4", 3), (12, 12, "L4", 4), (9, 9, "L3", 5)])
def test_generated_boards_are_unique(rows, cols, pieces, seed):
    inst, _ = generate_unique(rows, cols, parse_pieces(pieces), seed=seed)
    assert inst.board.rows == rows and inst.board.cols == cols
    assert check_unique(inst).verdict == "unique"
    assert check_unique(inst, encoding="pairwise", solver="glucose4").verdict == "unique"


def test_generate_cli_is_deterministic_and_parses(tmp_path):
    out = tmp_path / "g.txt"
    res = runner.invoke(app, ["generate", "--size", "10x10", "--seed", "7", "--out", str(out)])
    assert res.exit_code == 0, res.output
    again = runner.invoke(app, ["generate", "--size", "10x10", "--seed", "7"])
    assert again.stdout == out.read_text()
    inst = parse_instance(out.read_text())
    assert check_unique(inst).verdict == "unique" and "; expect: unique" in out.read_text()
    res = runner.invoke(app, ["check-unique", str(out)])
    assert res.exit_code == 0
    assert runner.invoke(app, ["generate", "--size", "10x10", "--out", str(out)]).exit_code == 2  # no overwrite
    assert runner.invoke(app, ["generate", "--size", "ten"]).exit_code == 2
    assert runner.invoke(app, ["generate", "--size", "8x8", "--pieces", "L4:2"]).exit_code == 2


def test_fast_generation_makes_a_unique_board():
    # generate_unique(fast=True): one incremental solver, a tile per region of difference
    from tilesat.certify.oracle import brute_force_tilings

    from tilesat import parse_pieces
    from tilesat.making.generate import generate_unique

    inst, tiles = generate_unique(7, 7, parse_pieces("L4"), seed=3, fast=True)
    grid = inst.board.rows_text()
    truth = brute_force_tilings(grid, "none", [("L4", inst.rules[0].piece.cells, "free", 0, float("inf"))])
    assert len(truth) == 1
    again, _ = generate_unique(7, 7, parse_pieces("L4"), seed=3, fast=True)
    assert again.board.rows_text() == grid  # the same seed, the same board
