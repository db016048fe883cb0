"""Draw the README's pictures of a puzzle on each grid (docs/grid-*.png).

Each puzzle is an instance file in instances/ (the text below stands in for
one that is not there); its first tiling (solve, dancing links: the same
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

from tilesat import load_instance, parse_instance, solve
from tilesat.pictures import tiling_raster
from tilesat.pieces import grid_piece_set
from tilesat.render import pieces_sheet, rich_tiling

ROOT = Path(__file__).resolve().parent.parent

HEXIAMONDS = "grid: triangle\npieces: hexiamonds:1\n" + "".join(" " * r + "v^" * 6 + "\n" for r in range(6))
LOZENGE = """grid: triangle
pieces: diamond
  ^v^v^v^
 ^v^v^v^v^
^v^v^v^v^v^
v^v^v^v^v^v
 v^v^v^v^v
  v^v^v^v
"""
TETRAHEXES = "grid: hex\npieces: tetrahexes:1\n" + "".join(" " * r + " ".join("." * 7) + "\n" for r in range(4))
SOMA = "grid: cube\npieces: soma:1\n" + "\n--\n".join(["...\n...\n..."] * 3) + "\n"
ONE_SIDED = "pieces: pentominoes-one-sided:1\n" + ("." * 30 + "\n") * 3

#: (picture name, instance file in instances/, the text used when the file is missing)
PUZZLES = [
    ("grid-pentominoes-one-sided-3x30", "pentominoes-one-sided-3x30.txt", ONE_SIDED),
    ("grid-lozenge-hexagon-3x3x3", "lozenge-hexagon-3x3x3.txt", LOZENGE),
    ("grid-hexiamonds-6x6", "hexiamonds-6x6-rhombus.txt", HEXIAMONDS),
    ("grid-tetrahexes-4x7", "tetrahexes-4x7-rhombus.txt", TETRAHEXES),
    ("grid-soma-cube", "soma-cube.txt", SOMA),
]


def instance_of(file: str, text: str):
    path = ROOT / "instances" / file
    return load_instance(path) if path.exists() else parse_instance(text, source=file)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--print", action="store_true", help="show each tiling and the pieces in the terminal too")
    args = ap.parse_args()
    console = Console()
    for name, file, text in PUZZLES:
        inst = instance_of(file, text)
        result = solve(inst, method="dlx")
        if result.verdict != "solved":
            raise SystemExit(f"{file}: {result.verdict}, no tiling to draw")
        out = ROOT / "docs" / f"{name}.png"
        # small boards of the other grids at 48 pixels a unit, the rest as tilesat draws them
        cell = 48 if not inst.board.is_square and max(inst.board.shape) <= 12 else None
        matplotlib.image.imsave(out, tiling_raster(inst, result.tilings[:1], cell=cell))
        print(f"{out.relative_to(ROOT)}: {file} ({inst.board.grid})")
        if args.print:
            console.print(rich_tiling(inst, result.tilings[0]))
    if args.print:
        for grid, name in (("triangle", "hexiamonds"), ("hex", "tetrahexes"), ("cube", "soma")):
            console.print(pieces_sheet(grid_piece_set(grid, name), console.width, colour=True))


if __name__ == "__main__":
    main()
