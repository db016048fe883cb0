"""Draw the docs' pictures of a puzzle on each grid (docs/grid-*.png).

Each puzzle is an instance file in instances/; its first tiling (solve, dancing links: the same
tiling every run) is drawn by tilesat's own pictures, as
``tilesat solve FILE --png docs/grid-NAME.png`` would.  The pieces pictures
are the text ``tilesat pieces SET --grid G`` prints.

    python scripts/make_grid_pictures.py            # rewrite docs/grid-*.png
    python scripts/make_grid_pictures.py --print    # also show each tiling and the pieces in the terminal

Only the docs/grid-*.png files this script makes are rewritten.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib.image
from rich.console import Console

from tilesat import load_instance, solve
from tilesat.showing.pictures import tiling_raster
from tilesat.model.pieces import grid_piece_set
from tilesat.showing.render import pieces_sheet, rich_tiling

ROOT = Path(__file__).resolve().parent.parent

#: (picture name, instance file in instances/)
PUZZLES = [
    ("grid-pentominoes-one-sided-3x30", "pentominoes-one-sided-3x30.txt"),
    ("grid-lozenge-hexagon-3x3x3", "lozenge-hexagon-3x3x3.txt"),
    ("grid-hexiamonds-6x6", "hexiamonds-6x6-rhombus.txt"),
    ("grid-tetrahexes-4x7", "tetrahexes-4x7-rhombus.txt"),
    ("grid-soma-cube", "soma-cube.txt"),
    ("grid-solid-pentominoes-2x3x10", "solid-pentominoes-2x3x10.txt"),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--print", action="store_true", help="show each tiling and the pieces in the terminal too")
    args = ap.parse_args()
    console = Console()
    for name, file in PUZZLES:
        inst = load_instance(ROOT / "instances" / file)
        result = solve(inst, method="dlx")
        if result.verdict != "solved":
            raise SystemExit(f"{file}: {result.verdict}, no tiling to draw")
        out = ROOT / "docs" / f"{name}.png"
        # the small triangle and hex boards at 48 pixels a unit, cubes at 32, squares as tilesat draws them
        cell = {"triangle": 48, "hex": 48, "cube": 32}.get(inst.board.grid)
        matplotlib.image.imsave(out, tiling_raster(inst, result.tilings[:1], cell=cell))
        print(f"{out.relative_to(ROOT)}: {file} ({inst.board.grid})")
        if args.print:
            console.print(rich_tiling(inst, result.tilings[0]))
    if args.print:
        for grid, name in (("triangle", "hexiamonds"), ("hex", "tetrahexes"), ("cube", "soma")):
            console.print(pieces_sheet(grid_piece_set(grid, name), console.width, colour=True))


if __name__ == "__main__":
    main()
