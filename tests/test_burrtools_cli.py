"""The command line on BurrTools files: `count --burrtools-count [--keep-mirrors]`
and `export --xmpuzzle`: the contract (output bytes, exit statuses, files) as
real processes, the many variants through typer's runner.

Each convention is shown on one of tilesat's small files (instances/burrtools/,
their README says what each shows); the counts the commands print are compared
with the brute force of tests/burrtools_oracle.py, which shares no code with
tilesat's counting.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest
import numpy as np
from hypothesis import example, given, settings, strategies as st
from typer.testing import CliRunner

import burrtools_oracle
from tilesat.cli import app
from tilesat.model.instance import Instance, PieceRule, load_instance, parse_instance
from tilesat.model.board import Board
from tilesat.model.pieces import Piece
from tilesat.model.xmpuzzle import burr_instance_text, format_xmpuzzle, instance_puzzle, parse_xmpuzzle, read_xmpuzzle

ROOT = Path(__file__).resolve().parent.parent
FILES = ROOT / "instances" / "burrtools"


def tilesat(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "tilesat", *map(str, args)], capture_output=True, cwd=cwd)


runner = CliRunner()


def cli(*args) -> tuple[int, str]:
    """In-process (for speed): the exit status and standard output."""
    result = runner.invoke(app, [str(a) for a in args])
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.stdout


def one_line_error(run, *words):
    assert run.returncode == 2 and run.stdout == b"", run
    assert run.stderr.startswith(b"error: ") and run.stderr.count(b"\n") == 1, run.stderr
    assert all(w.encode() in run.stderr for w in words), run.stderr


# file, problem, the convention it shows (instances/burrtools/README.md), how mirror images count by default
CONVENTIONS = [
    ("rotations", 0, "rotations of one another count once", "same"),
    ("copies-and-twins", 0, "copies of one shape are interchangeable", "same"),
    ("copies-and-twins", 1, "shapes with identical voxels are different pieces", "same"),
    ("mirror-partners", 0, "mirror images count once, the partner swapped in", "same"),
    ("mirror-unpaired", 0, "an unpartnered piece with ranges: its assemblies apart", "partial"),
    ("twins-no-partner", 0, "fixed counts, a piece without partner: mirror images apart", "apart"),
    ("holes", 0, "variable voxels", "same"),
    ("colours", 0, "colour pairs", "same"),
]


@pytest.mark.parametrize("name, problem, shows, mirror", CONVENTIONS)
def test_count_as_burrtools_counts(name, problem, shows, mirror):
    puzzle = read_xmpuzzle(FILES / f"{name}.xmpuzzle")
    status, out = cli("count", f"{FILES / name}.xmpuzzle:{problem}", "--burrtools-count", "--json")
    assert status == 0, out
    data = json.loads(out)
    assert data["count"] == burrtools_oracle.count(puzzle, problem, False, False)
    assert (data["exact"], data["convention"], data["problem"], data["mirror"]) == (True, "burrtools", problem, mirror)


def test_keep_mirrors_and_every_assembly():
    # mirror-partners: 2 as BurrTools counts, 3 with mirror solutions kept, 25 assemblies in all
    path = FILES / "mirror-partners.xmpuzzle"
    puzzle = read_xmpuzzle(path)
    runs = [cli("count", path, "--keep-mirrors"), cli("count", path, "--burrtools-count", "--keep-mirrors", "--json"),
            cli("count", path, "--json")]
    assert [status for status, _ in runs] == [0, 0, 0]
    text = runs[0][1]
    mirror_kept = burrtools_oracle.count(puzzle, 0, True, False)
    assert text.startswith(f"count: {mirror_kept} assemblies of problem 0") and text.count("\n") == 1
    assert "as BurrTools counts them" in text and "mirror images count apart (mirror solutions kept)" in text
    assert json.loads(runs[1][1])["count"] == mirror_kept and json.loads(runs[1][1])["keep_mirrors"]
    # without --burrtools-count the problem is a tilesat instance: every assembly apart
    assert json.loads(runs[2][1])["count"] == burrtools_oracle.count(puzzle, 0, True, True)


def test_text_says_the_conventions_and_the_recorded_count():
    run = tilesat("count", FILES / "SolidSixPieceBurrs.xmpuzzle", "--burrtools-count")
    assert run.returncode == 0 and run.stderr == b""
    text = run.stdout.decode()
    # 588 as burrTxt counts it by default (instances/burrtools/README.md); the file records 1,063 (mirrors kept)
    assert text.startswith("count: 588 assemblies of problem 0, as BurrTools counts them: rotations of one "
                           "another count once (the result's 12 rotations), mirror images count once")
    assert text.rstrip().endswith("(the file records 1,063)")


def test_what_burrtools_count_cannot_go_with(tmp_path):
    one_line_error(tilesat("count", ROOT / "instances" / "soma-cube.txt", "--burrtools-count"), "not one")
    for args, words in [(("--keep-mirrors", "--up-to-symmetry", "--jobs", "2"), ("--up-to-symmetry", "--jobs")),
                        (("--burrtools-count", "--method", "dlx"), ("--method",))]:
        status, out = cli("count", FILES / "rotations.xmpuzzle", *args)
        assert status == 2 and out == ""
    status, out = cli("count", FILES / "rotations.xmpuzzle:9", "--burrtools-count")
    assert status == 2 and out == ""


def test_timeout_prints_a_lower_bound():
    # the limit counts from the process's start: it is over before the search begins
    run = tilesat("count", FILES / "SolidSixPieceBurrs.xmpuzzle", "--burrtools-count", "--timeout", "0.001")
    assert run.returncode == 124, run.stderr
    assert run.stdout.startswith(b"count: at least ") and b"(time limit reached)" in run.stdout


# --- export --xmpuzzle ------------------------------------------------------------

def test_export_then_read_back(tmp_path):
    source = ROOT / "instances" / "soma-cube.txt"
    out = tmp_path / "soma.xmpuzzle"
    run = tilesat("export", source, "--xmpuzzle", out)
    assert run.returncode == 0 and run.stdout == b"" and b"wrote" in run.stderr
    puzzle = read_xmpuzzle(out)
    original = load_instance(source)
    # names and comments kept
    assert [s.name for s in puzzle.shapes[1:]] == [r.name for r in original.rules]
    assert puzzle.comment.splitlines()[0] == source.read_text().splitlines()[0].lstrip("; ")
    assert gzip.decompress(out.read_bytes()).startswith(b'<?xml version="1.0"?>\n<puzzle version="2">')
    assert same_instance(load_instance(out), original)
    counts = [json.loads(cli("count", path, "--json")[1])["count"] for path in (source, out)]
    assert counts[0] == counts[1]
    # BurrTools' count of the Soma cube: its classes under the cube's whole group (pieces A and B are mirror partners)
    classes = json.loads(cli("count", source, "--up-to-symmetry", "--json")[1])["up_to_symmetry"]
    assert json.loads(cli("count", out, "--burrtools-count", "--json")[1])["count"] == classes
    # nothing overwritten without --force; a BurrTools file written back whole
    before = out.read_bytes()
    one_line_error(tilesat("export", source, "--xmpuzzle", out), "--force")
    assert out.read_bytes() == before
    again = tmp_path / "again.xmpuzzle"
    assert cli("export", FILES / "copies-and-twins.xmpuzzle", "--xmpuzzle", again)[0] == 0
    assert read_xmpuzzle(again) == read_xmpuzzle(FILES / "copies-and-twins.xmpuzzle")


def test_export_flat_board(tmp_path, board):
    # a square board is one layer of cubes; BurrTools' rotations of it are the board's turns and flips
    path = board("; a 3x5 rectangle of L, P, Y and U pentominoes, any number of each\npieces: L5, P5, Y5, U5\n"
                 + ".....\n" * 3)
    out = tmp_path / "flat.xmpuzzle"
    assert cli("export", path, "--xmpuzzle", out)[0] == 0
    mine = json.loads(cli("count", path, "--up-to-symmetry", "--json")[1])
    theirs = [json.loads(cli("count", out, *extra, "--json")[1]) for extra in ((), ("--burrtools-count",))]
    assert theirs[0]["count"] == mine["count"] and theirs[1]["count"] == mine["up_to_symmetry"]


def test_export_optional_cells_and_colours(tmp_path, board):
    # '+' cells become variable voxels, colours BurrTools' custom colours with the instance's pairs
    path = board("colours: A:A, B:B\nshape: D #A\nshape: E AB\npieces: D, E:0..1\n..+A\nAB+.\n")
    out = tmp_path / "coloured.xmpuzzle"
    assert cli("export", path, "--xmpuzzle", out)[0] == 0
    puzzle = read_xmpuzzle(out)
    assert puzzle.shapes[0].text() == "##+#1#1#2+#" and len(puzzle.colours) == 2
    assert puzzle.problems[0].pairs == {(0, 0), (1, 1)}
    mine = json.loads(cli("count", path, "--up-to-symmetry", "--json")[1])
    theirs = [json.loads(cli("count", out, *extra, "--json")[1]) for extra in ((), ("--burrtools-count",))]
    assert theirs[0]["count"] == mine["count"] and theirs[1]["count"] == mine["up_to_symmetry"]
    assert theirs[1]["count"] == burrtools_oracle.count(puzzle, 0, False, False)


def test_export_refuses_what_burrtools_cannot_say(tmp_path, board):
    one_line_error(tilesat("export", board("pieces: F5/one-sided\n.....\n....."), "--xmpuzzle", tmp_path / "a.xmpuzzle"),
                   "one-sided")
    for text, args in [("pieces: I2\nwrap: rows\n..\n..", ("--xmpuzzle", tmp_path / "b.xmpuzzle")),
                       ("pieces: I2\n..\n..", ("--xmpuzzle", tmp_path / "c.txt")),
                       ("pieces: I2\n..\n..", ())]:
        assert cli("export", board(text), *args) == (2, "")
    assert not any(tmp_path.glob("*.xmpuzzle"))


def same_instance(a: Instance, b: Instance) -> bool:
    """The same board and the same pieces (shape up to translation, orientations, counts); names may differ
    (reading a BurrTools file renames shapes that are tilesat's built-in names)."""
    def rules(i):
        return sorted((tuple(sorted(map(tuple, r.piece.orientations(r.orient)))), r.min, r.max) for r in i.rules)

    return a.board.grid == b.board.grid and open_cells(a) == open_cells(b) and rules(a) == rules(b)


def open_cells(instance: Instance) -> list[tuple]:
    """The board's open cells, moved to the origin (a BurrTools result is its filled voxels' box)."""
    cells = instance.board.cells(instance.board.open_cells)
    low = [min(c[k] for c in cells) for k in range(len(cells[0]))]
    return sorted(tuple(v - m for v, m in zip(c, low)) for c in cells)


@st.composite
def cube_instances(draw):
    """Small cube boards (a box with some cells blocked) and 1-3 pieces of 1-4 cubes with counts."""
    size = [draw(st.integers(1, 3)) for _ in range(3)]
    cells = [(z, y, x) for z in range(size[0]) for y in range(size[1]) for x in range(size[2])]
    blocked = draw(st.sets(st.sampled_from(cells), max_size=len(cells) - 1))
    rules = []
    for k in range(draw(st.integers(1, 3))):
        piece_cells = draw(st.sets(st.sampled_from([(z, y, x) for z in range(2) for y in range(2) for x in range(2)]),
                                   min_size=1, max_size=4))
        low = draw(st.integers(0, 2))
        high = draw(st.sampled_from([max(low, 1), low + 1, float("inf")]))
        rules.append(PieceRule(Piece(f"Q{k}", tuple(sorted(piece_cells)), "cube"), "free", low, high))
    mask = np.ones(size, bool)
    for cell in blocked:
        mask[cell] = False
    return Instance(Board(mask, "none", "cube"), tuple(rules), source="random.txt")


@settings(max_examples=30, deadline=None)
@given(instance=cube_instances())
@example(instance=Instance(Board(np.ones((1, 1, 1), bool), "none", "cube"),  # a piece bigger than the board, any number
                           (PieceRule(Piece("Q0", ((0, 0, 0), (0, 0, 1)), "cube"), "free", 0, float("inf")),)))
def test_instance_round_trip(instance):
    # instance -> BurrTools puzzle -> its XML -> read back -> the instance again: same board, pieces, tilings
    from tilesat.questions.count import count_tilings

    back = parse_instance(burr_instance_text(parse_xmpuzzle(format_xmpuzzle(instance_puzzle(instance)).encode())))
    assert open_cells(back) == open_cells(instance)
    assert count_tilings(back, "xcc").count == count_tilings(instance, "xcc").count
