"""Tilings written for other tools (issue 32): CSV, a grid of tile numbers
(TSV) and the letters of the piped output, by the file's ending, from solve,
check-unique and list as real processes; each read back (with Python's csv
module, as a spreadsheet or a program would) is the tilings of the JSON."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tilesat.model.tiling import Tile, Tiling

from contract.process import expect, tilesat, usage_error

INSTANCES = Path(__file__).resolve().parent.parent / "instances"


def from_json(run) -> list[Tiling]:
    return [Tiling.from_json(t) for t in json.loads(run.text)["tilings"]]


def from_csv(path) -> list[Tiling]:
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    head, body = rows[0], rows[1:]
    cells_at = slice(3, len(head))
    tilings: dict = {}
    for row in body:
        tiles = tilings.setdefault(int(row[0]), {})
        piece, cells = tiles.setdefault(int(row[1]), (row[2], []))
        cells.append(tuple(int(v) for v in row[cells_at]))
    assert list(tilings) == list(range(1, len(tilings) + 1))  # numbered from 1, in order
    return [Tiling(tuple(sorted(Tile(p, tuple(sorted(c))) for p, c in tiles.values()))) for tiles in tilings.values()]


def from_tsv(path) -> list[list[list[str]]]:
    """The grids of tile numbers, split at blank lines."""
    blocks = Path(path).read_text().split("\n\n")
    return [[line.split("\t") for line in block.strip("\n").split("\n")] for block in blocks]


def same_partition(grid: list[list[str]], tiling: Tiling) -> bool:
    """Do the numbers of the grid group the cells as the tiling's tiles do?"""
    groups: dict = {}
    for r, row in enumerate(grid):
        for c, value in enumerate(row):
            if value not in ("#", ""):
                groups.setdefault(value, set()).add((r, c))
    return sorted(map(sorted, groups.values())) == sorted(sorted(t.cells) for t in tiling)


def test_check_unique_writes_both_tilings_as_csv_tsv_and_text(tmp_path):
    name = INSTANCES / "lpanel-4x8-multiple.txt"
    shown = from_json(expect(tilesat("check-unique", name, "--json"), 1))
    for ending in ("csv", "tsv", "txt", "jsonl"):
        expect(tilesat("check-unique", name, "-o", tmp_path / f"t.{ending}"), 1)
    assert from_csv(tmp_path / "t.csv") == shown
    grids = from_tsv(tmp_path / "t.tsv")
    assert len(grids) == 2 and all(same_partition(g, t) for g, t in zip(grids, shown))
    piped = expect(tilesat("check-unique", name), 1).text.splitlines()[2:6]  # the side-by-side rows
    text = (tmp_path / "t.txt").read_text().split("\n\n")
    assert [block.splitlines() for block in text] == [[row.split()[k] for row in piped] for k in (0, 1)]
    assert [Tiling.from_json(json.loads(line)) for line in (tmp_path / "t.jsonl").read_text().splitlines()] == shown


def test_list_writes_every_tiling_to_csv_as_it_goes(tmp_path):
    name = INSTANCES / "pentomino-3x20.txt"
    run = expect(tilesat("list", name, "--out", tmp_path / "all.csv"), 0)
    assert run.err == f"listed all 8 tilings to {tmp_path / 'all.csv'}\n"
    tilings = from_csv(tmp_path / "all.csv")
    assert len(tilings) == 8 and len(set(t.key() for t in tilings)) == 8
    expect(tilesat("list", name, "--out", tmp_path / "all.jsonl"), 0)
    listed = [Tiling.from_json(json.loads(line)) for line in (tmp_path / "all.jsonl").read_text().splitlines()]
    assert sorted(t.key() for t in tilings) == sorted(t.key() for t in listed)


def test_cube_tilings_keep_their_layers(tmp_path):
    name = INSTANCES / "soma-cube.txt"
    shown = from_json(expect(tilesat("solve", name, "--json"), 0))
    expect(tilesat("solve", name, "-o", tmp_path / "s.csv"), 0)
    expect(tilesat("solve", name, "-o", tmp_path / "s.tsv"), 0)
    assert from_csv(tmp_path / "s.csv") == shown
    assert next(csv.reader(open(tmp_path / "s.csv"))) == ["tiling", "tile", "piece", "layer", "row", "column"]
    layers = (tmp_path / "s.tsv").read_text().split("--\n")
    assert len(layers) == 3 and all(len(layer.splitlines()) == 3 for layer in layers)


def test_no_tiling_writes_nothing_and_says_so(tmp_path):
    run = expect(tilesat("solve", INSTANCES / "lpanel-6x6-none.txt", "-o", tmp_path / "n.csv"), 3)
    assert run.err == f"note: {tmp_path / 'n.csv'} not written: there is no tiling to write\n"
    assert not (tmp_path / "n.csv").exists()


def test_out_is_not_overwritten_and_checkpoint_keeps_to_json(tmp_path):
    (tmp_path / "mine.csv").write_text("mine")
    usage_error(tilesat("solve", INSTANCES / "lpanel-6x6.txt", "-o", tmp_path / "mine.csv"), "exists; pass --force")
    assert (tmp_path / "mine.csv").read_text() == "mine"
    line = usage_error(tilesat("list", INSTANCES / "lpanel-6x6.txt", "--out", tmp_path / "l.csv",
                               "--checkpoint", tmp_path / "c"))
    assert "use a name ending in .jsonl" in line
