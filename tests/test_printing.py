"""Printable puzzles (issue 32): the board unsolved, the solution, both side
by side under titles, --cell-size, and the print layout (a PDF: a puzzle page
and a solution page), through the command line as real processes and looked
at as pixels: the PNGs as written, the PDF's pages as a PDF renderer
(pdfium) draws them."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import matplotlib.image
import numpy as np
import pytest

from tilesat import load_instance, parse_instance
from tilesat.showing.printing import Pages, count_words, page_raster, panels, print_figures, puzzle_figure
from tilesat.showing.style import BLOCKED, PALETTE

from procs import run_tilesat

INSTANCES = Path(__file__).resolve().parent.parent / "instances"
SVG = "{http://www.w3.org/2000/svg}"
PALETTE_RGB = np.array([[int(c[i : i + 2], 16) for i in (1, 3, 5)] for c in PALETTE])
BLOCKED_RGB = np.array([int(BLOCKED[i : i + 2], 16) for i in (1, 3, 5)])


def png(path) -> np.ndarray:
    """An RGB image as 0..255 integers."""
    return (matplotlib.image.imread(path)[..., :3] * 255).round().astype(int)


def pdf_pages(path, dpi: float = 40) -> list[np.ndarray]:
    """The PDF's pages as RGB images, drawn by pdfium (not by what wrote the PDF)."""
    pdfium = pytest.importorskip("pypdfium2")
    doc = pdfium.PdfDocument(str(path))
    try:
        return [np.asarray(page.render(scale=dpi / 72).to_pil().convert("RGB")).astype(int) for page in doc]
    finally:
        doc.close()


def palette_share(img: np.ndarray) -> float:
    """The share of the pixels within a few levels of a palette colour (tiles)."""
    near = (np.abs(img[:, :, None, :] - PALETTE_RGB[None, None]).max(axis=-1) <= 6).any(axis=-1)
    return float(near.mean())


def cell_centres(img: np.ndarray, inst, cell: int, x0: int = 0, y0: int = 0):
    """The colour at the centre of each cell of a square board drawn from (x0, y0)."""
    board = inst.board
    return {(r, c): img[y0 + r * cell + cell // 2, x0 + c * cell + cell // 2] for r in range(board.rows)
            for c in range(board.cols)}


def test_generate_prints_the_puzzle_and_its_solution(tmp_path):
    out = {k: tmp_path / f"p.{k}" for k in ("txt", "png", "svg", "pdf")}
    run = run_tilesat("generate", "--size", "8x8", "--pieces", "L4, T4", "--seed", "3", "-o", out["txt"],
                      "--png", out["png"], "--svg", out["svg"], "--pdf", out["pdf"], "--cell-size", "20")
    assert run.returncode == 0, run.stderr
    inst = load_instance(out["txt"])
    # the PNG: the puzzle (generate's default), 20 px a cell; open cells white, blocked cells dark
    img = png(out["png"])
    assert img.shape[:2] == (8 * 20, 8 * 20)
    for (r, c), rgb in cell_centres(img, inst, 20).items():
        want = [255, 255, 255] if inst.board.open[r, c] else BLOCKED_RGB
        assert np.abs(rgb - want).max() <= 2, (r, c, rgb)
    assert palette_share(img) == 0  # no tile drawn
    # the SVG: one unsolved board, no tile
    root = ET.parse(out["svg"]).getroot()
    groups = [g.get("class") for g in root.iter(f"{SVG}g") if g.get("class") in ("puzzle", "tiling")]
    assert groups == ["puzzle"]
    assert not [p for p in root.iter(f"{SVG}path") if p.get("class") == "tile"]
    # the PDF: a puzzle page without tiles, then a solution page with them
    puzzle, solution = pdf_pages(out["pdf"])
    assert palette_share(puzzle) == 0 and palette_share(solution) > 0.02
    ink = (puzzle < 100).all(axis=-1)
    assert ink.mean() > 0.005  # the board's lines, the pieces, the words
    assert (puzzle == 255).all(axis=-1).mean() > 0.5  # white paper


def test_generate_both_and_the_solution_is_the_tiling(tmp_path):
    run = run_tilesat("generate", "--size", "6x6", "--seed", "11", "-o", tmp_path / "g.txt", "--svg", tmp_path / "g.svg",
                      "--draw", "both")
    assert run.returncode == 0, run.stderr
    root = ET.parse(tmp_path / "g.svg").getroot()
    assert [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "title"] == ["puzzle", "solution"]
    groups = [g for g in root.iter(f"{SVG}g") if g.get("class") in ("puzzle", "tiling")]
    assert [g.get("class") for g in groups] == ["puzzle", "tiling"]
    tiles = [p for p in groups[1].iter(f"{SVG}path") if p.get("class") == "tile"]
    inst = load_instance(tmp_path / "g.txt")
    assert sum(len(p.get("d").split("M")) - 1 for p in tiles) == inst.board.area  # every open cell covered


def test_check_unique_labels_both_tilings_and_the_puzzle(tmp_path):
    name = INSTANCES / "lpanel-4x8-multiple.txt"
    inst = load_instance(name)
    run = run_tilesat("check-unique", name, "--png", tmp_path / "m.png", "--draw", "both")
    assert run.returncode == 1, run.stderr
    img = png(tmp_path / "m.png")
    cell = 24
    # three panels (the puzzle, tiling 1, tiling 2), each under a title strip with dark text in it
    head = int(round(1.6 * 16.8))
    h, w = 4 * cell, 8 * cell
    starts = [(0, 0), (0, w + 2 * cell), (h + head + 2 * cell, 0)]
    for k, (y, x) in enumerate(starts):
        strip = img[y : y + head, x : x + w]
        assert (strip < 80).all(axis=-1).sum() > 30, k  # the title's letters
        colours = cell_centres(img, inst, cell, x, y + head)
        if k == 0:  # the puzzle: white cells
            assert all(np.abs(c - 255).max() <= 2 for c in colours.values())
        else:  # a tiling: every cell in a palette colour (a dot marks the cells that differ, off-centre it is not)
            tiles = [np.abs(PALETTE_RGB - img[y + head + r * cell + 4, x + c * cell + cell // 2 + 6]).max(axis=1).min()
                     for r in range(4) for c in range(8)]
            assert max(tiles) <= 6


def test_titles_only_when_there_are_several_pictures(tmp_path):
    name = INSTANCES / "lpanel-8x8.txt"
    run = run_tilesat("check-unique", name, "--png", tmp_path / "u.png", "--cell-size", "10", "--no-grade")
    assert run.returncode == 0, run.stderr
    assert png(tmp_path / "u.png").shape[:2] == (8 * 10, 8 * 10)  # one tiling: no title, 10 px a cell
    run = run_tilesat("check-unique", name, "--png", tmp_path / "p.png", "--draw", "puzzle", "--no-grade")
    img = png(tmp_path / "p.png")
    assert img.shape[:2] == (8 * 24, 8 * 24) and palette_share(img) == 0


@pytest.mark.parametrize("text", [
    "grid: triangle\npieces: triamond, diamond\n^v^v^v\nv^#^v^\n^v^v^v\n",
    "grid: hex\npieces: trihexes, dihex\n. . . #\n . . . .\n  . . . .\n",
    "grid: cube\npieces: tricubes\n" + "\n--\n".join(["...\n..."] * 2) + "\n",
])
def test_every_grid_draws_its_puzzle(tmp_path, text):
    path = tmp_path / "b.txt"
    path.write_text(text)
    run = run_tilesat("solve", path, "--svg", tmp_path / "b.svg", "--png", tmp_path / "b.png", "--pdf", tmp_path / "b.pdf",
                      "--draw", "both")
    assert run.returncode == 0, run.stderr
    root = ET.parse(tmp_path / "b.svg").getroot()
    groups = [g for g in root.iter(f"{SVG}g") if g.get("class") in ("puzzle", "tiling")]
    assert [g.get("class") for g in groups] == ["puzzle", "tiling"]
    assert not [p for p in groups[0].iter(f"{SVG}path") if p.get("class") == "tile"]
    assert [p for p in groups[1].iter(f"{SVG}path") if p.get("class") == "tile"]
    img = png(tmp_path / "b.png")
    left, right = img[:, : img.shape[1] // 2], img[:, img.shape[1] // 2 :]
    assert palette_share(left) == 0 and palette_share(right) > 0.05
    puzzle, solution = pdf_pages(tmp_path / "b.pdf")
    assert palette_share(puzzle) == 0 and palette_share(solution) > 0.005


def test_pdf_of_a_board_without_tiling(tmp_path):
    name = INSTANCES / "lpanel-6x6-none.txt"
    run = run_tilesat("solve", name, "--pdf", tmp_path / "n.pdf", "--no-certificate")
    assert run.returncode == 3
    assert len(pdf_pages(tmp_path / "n.pdf")) == 1  # the puzzle page alone
    run = run_tilesat("solve", name, "--pdf", tmp_path / "s.pdf", "--draw", "solution", "--no-certificate")
    assert run.returncode == 3 and not (tmp_path / "s.pdf").exists()
    assert run.stderr.splitlines() == [f"note: {tmp_path / 's.pdf'} not written: there is no tiling to draw "
                                       "(--draw puzzle draws the board)"]


@pytest.mark.parametrize("args, message", [
    (["--draw", "answer"], "error: --draw 'answer': use puzzle, solution or both"),
    (["--pdf", "x.png"], "error: --pdf x.png: the file name must end in .pdf"),
    (["--cell-size", "1"], "error: Invalid value for '--cell-size'"),
])
def test_bad_picture_options(tmp_path, args, message):
    run = run_tilesat("solve", INSTANCES / "lpanel-8x8.txt", *args, cwd=tmp_path)
    assert run.returncode == 2
    assert run.error_line().startswith(message)
    assert not list(tmp_path.iterdir())


def test_pdf_is_not_overwritten_without_force(tmp_path):
    (tmp_path / "p.pdf").write_text("mine")
    run = run_tilesat("solve", INSTANCES / "lpanel-8x8.txt", "--pdf", tmp_path / "p.pdf")
    assert run.returncode == 2 and "exists; pass --force" in run.error_line()
    assert (tmp_path / "p.pdf").read_text() == "mine"


def test_puzzle_page_lists_each_piece_with_its_count():
    inst = parse_instance("pieces: L4:2, T4:1..3, I4\n........\n........\n")
    assert [count_words(r) for r in inst.rules] == ["\u00d7 2", "\u00d7 1 to 3", "any number"]
    fig = puzzle_figure(inst, Pages("t"))
    words = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert words == ["L4", "\u00d7 2", "T4", "\u00d7 1 to 3", "I4", "any number"]
    img = page_raster(fig, 30)
    assert palette_share(img) == 0


def test_panels_and_their_titles():
    t = object()
    assert panels("puzzle", [t]) == ([None], None)
    assert panels("solution", [t]) == ([t], None)
    assert panels("both", [t]) == ([None, t], ["puzzle", "solution"])
    assert panels("both", [t, t]) == ([None, t, t], ["puzzle", "tiling 1", "tiling 2"])
    assert panels("solution", [t, t]) == ([t, t], ["tiling 1", "tiling 2"])
    assert panels("solution", []) == ([], None)
    assert len(print_figures(parse_instance("pieces: I2\n..\n"), [], Pages("t"))) == 1


def test_the_puzzle_page_says_and_shows_cells_that_may_stay_empty_and_colours():
    """The print layout of a board with '+' and coloured cells: the rule says that marked cells
    may stay empty and how letters meet, the board's letters are on it (drawn by draw_panel)
    and a coloured piece cell carries its letter on the piece."""
    from tilesat.showing.printing import instructions

    text = "colours: A:A, B:B\nshape: D #A\nshape: E AB\npieces: D, E:0..1\n..+A\nAB+.\n"
    inst = parse_instance(text)
    rule = instructions(inst)
    assert "white or tinted cell" in rule and "may stay empty" in rule and "piece:board): A:A, B:B" in rule
    plain = instructions(parse_instance("pieces: I2\n....\n"))
    assert "may stay empty" not in plain and "letter" not in plain
    fig = puzzle_figure(inst, Pages("t"))
    words = [t.get_text() for ax in fig.axes for t in ax.texts]
    # the board's marks (two '+', A, A, B), then the pieces: D's A cell, E's A and B cells
    assert sorted(w for w in words if w in ("+", "A", "B")) == sorted(["+", "+", "A", "A", "B", "A", "A", "B"])
    assert instructions(parse_instance("shape: D #A\npieces: D\n.A\n")).endswith("cells without one fit anything.")
