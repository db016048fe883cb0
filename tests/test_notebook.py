"""Tilings in a notebook (issue 32): examples/tilings.ipynb run by a real
Jupyter kernel (nbclient + ipykernel), each output what Jupyter would show;
and the rich displays themselves (``_repr_svg_``, ``_repr_html_``) on every grid."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import tilesat
from tilesat.questions.count import count_tilings

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "examples" / "tilings.ipynb"
SVG = "{http://www.w3.org/2000/svg}"


def tiles_in(svg_text: str, group: str = "tiling") -> list[int]:
    """The number of tile paths in each ``<g class=group>`` of an SVG text."""
    root = ET.fromstring(svg_text)
    return [sum(1 for p in g.iter(f"{SVG}path") if p.get("class") == "tile")
            for g in root.iter(f"{SVG}g") if g.get("class") == group]


def svgs(html: str) -> list[str]:
    return re.findall(r"<svg.*?</svg>", html, re.S)


@pytest.fixture(scope="module")
def executed():
    nbformat = pytest.importorskip("nbformat")
    from nbclient import NotebookClient

    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    return [cell for cell in nb.cells if cell.cell_type == "code"]


def result_of(cell) -> dict:
    (out,) = [o for o in cell.outputs if o.output_type == "execute_result"]
    return out.data


def test_the_example_notebook_runs_in_a_kernel_and_shows_pictures(executed):
    assert not [o for cell in executed for o in cell.outputs if o.output_type == "error"]
    board, result, tiling, count, hexes = (result_of(cell) for cell in executed[1:])
    # the instance: its pieces, and the board unsolved
    assert "pieces:</b> L4" in board["text/html"]
    (picture,) = svgs(board["text/html"])
    assert tiles_in(picture, "puzzle") == [0] and "image/svg+xml" in board
    # the check-unique result: the verdict, two tilings of 8 tiles under their titles
    assert "multiple: two tilings, differing at 8 cells" in result["text/html"]
    (picture,) = svgs(result["text/html"])
    assert tiles_in(picture) == [8, 8] and "tiling 1" in picture and "tiling 2" in picture
    # one tiling on its own
    assert tiles_in(tiling["image/svg+xml"]) == [8]
    # the count's sentence
    assert "count: 9,356 tilings, 2,339 up to symmetry (the 4 symmetries of the rectangle)" in count["text/html"]
    # a hex board
    assert "solved: a tiling" in hexes["text/html"] and tiles_in(svgs(hexes["text/html"])[0]) == [4]


@pytest.mark.parametrize("text", [
    "grid: triangle\npieces: triamond, diamond\n^v^v^v\nv^#^v^\n^v^v^v\n",
    "grid: cube\npieces: tricubes\n...\n...\n--\n...\n...\n",
    "pieces: L4\nwrap: both\n....\n....\n",
])
def test_every_grid_displays_its_tiling_alone(text):
    inst = tilesat.parse_instance(text)
    result = tilesat.solve(inst)
    tiling = result.tilings[0]
    assert tiling.grid == inst.board.grid
    assert tiles_in(tiling._repr_svg_()) == [len(tiling)]
    assert tiles_in(svgs(result._repr_html_())[0]) == [len(tiling)]
    assert tiles_in(svgs(inst._repr_html_())[0], "puzzle") == [0]


def test_a_board_without_tiling_displays_its_verdict_and_board():
    inst = tilesat.parse_instance("pieces: L4\n......\n......\n......\n")
    html = tilesat.check_unique(inst, certificates=False)._repr_html_()
    assert "none: no tiling exists" in html and svgs(html)


def test_a_count_displays_its_sentence():
    html = count_tilings(tilesat.load_instance(ROOT / "instances" / "soma-cube.txt"), up_to_symmetry=True)._repr_html_()
    assert html.startswith("<p>count: 11,520 tilings, 240 up to symmetry (the 48 symmetries of the cube)")
