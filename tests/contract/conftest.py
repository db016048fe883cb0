"""The inputs every contract test shares, written once per session."""

import json

import pytest

import tilesat

from .process import INSTANCES


def mutilated(n: int) -> str:
    """Dominoes on n x n without two opposite corners: no tiling; CDCL needs exponential time, the LP a moment."""
    rows = [["."] * n for _ in range(n)]
    rows[0][0] = rows[n - 1][n - 1] = "#"
    return "pieces: I2\n" + "\n".join("".join(r) for r in rows) + "\n"


def rectangle(pieces: str, rows: int, cols: int) -> str:
    return f"pieces: {pieces}\n" + ("." * cols + "\n") * rows


BOARDS = {
    "mut8.txt": mutilated(8),  # none: CDCL proves it in milliseconds
    "mut16.txt": mutilated(16),  # none: the LP certificate (after the search's head start); CDCL alone cannot
    "mut60.txt": mutilated(60),  # the same at 60x60: a bigger LP
    "t4.txt": rectangle("T4", 4, 6),  # none, by the certificate of the README
    "open20.txt": rectangle("L4", 20, 20),  # open: the sweep's kind of board
    "dom4.txt": rectangle("I2", 4, 4),  # 36 domino tilings
    "l3.txt": rectangle("L3", 6, 6),  # 162 L-tromino tilings
    "v5.txt": rectangle("V5", 5, 5),  # packing: 4, proved by the LP bound
    "t8.txt": rectangle("T5", 8, 8),  # packing: 10, proved by SAT (the LP says 12)
    "v16.txt": rectangle("V5", 16, 16),  # packing too long to finish: for --timeout and Ctrl-C
}


@pytest.fixture(scope="session")
def boards(tmp_path_factory):
    d = tmp_path_factory.mktemp("contract-boards")
    for name, text in BOARDS.items():
        (d / name).write_text(text)
    for name in ("lpanel-6x6.txt", "lpanel-8x8.txt"):  # their tilings, found through the library
        tiling = tilesat.solve(tilesat.load_instance(INSTANCES / name)).tilings[0]
        (d / name.replace(".txt", "-tiling.json")).write_text(json.dumps({"tilings": [tiling.to_json()]}))
    return d
