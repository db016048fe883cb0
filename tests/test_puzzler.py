"""Polyform Puzzler's puzzle definitions read as instances (issue 32): the
files in instances/polyform-puzzler/ give the counts they state (checked
against the brute-force oracle where it can), the reader never runs the file
(what it cannot read is one error line naming the line), its board helpers
make the shapes Polyform Puzzler's documentation describes, and a random
board written as a coordinates method reads back as that board."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesat import load_instance
from tilesat.questions.count import count_tilings
from tilesat.certify.oracle import brute_force_tilings
from tilesat.errors import TilesatError
from tilesat.model.pieces import canonical
from tilesat.model.puzzler import aztec_diamond, diamond, double_triangle, open_box, read_puzzler, triangle

from contract.process import expect, tilesat, usage_error, verdict

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted((ROOT / "instances" / "polyform-puzzler").glob("*.py"))


def test_there_are_examples():
    assert len(FILES) >= 4


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_each_example_states_its_origin_and_gives_its_count(path):
    text = path.read_text()
    assert "Polyform Puzzler's format" in text and "not taken from Polyform Puzzler" in text  # its origin
    m = re.search(r"^# expect: ([\d,]+) tilings, ([\d,]+) up to symmetry", text, re.M)
    result = count_tilings(load_instance(path), up_to_symmetry=True)
    assert (result.count, result.up_to_symmetry) == (int(m[1].replace(",", "")), int(m[2].replace(",", "")))


@pytest.mark.parametrize("name", ["one-sided-tetrominoes-6x5.py", "staircase-custom-pieces.py"])
def test_small_examples_against_the_oracle(name):
    inst = load_instance(ROOT / "instances" / "polyform-puzzler" / name)
    pieces = [(r.name, r.piece.cells, r.orient, r.min, r.max) for r in inst.rules]
    truth = brute_force_tilings(inst.board.rows_text(), "none", pieces, node_limit=2_000_000)
    assert len(truth) == count_tilings(inst).count


def test_the_chessboard_file_is_the_instance_of_the_same_board():
    py = load_instance(ROOT / "instances" / "polyform-puzzler" / "pentominoes-8x8-centre.py")
    txt = load_instance(ROOT / "instances" / "pentomino-8x8-center.txt")
    assert (py.board.open == txt.board.open).all()
    assert sorted(canonical(r.piece.cells) for r in py.rules) == sorted(canonical(r.piece.cells) for r in txt.rules)
    assert [(r.min, r.max, r.orient) for r in py.rules] == [(1, 1, "free")] * 12


def test_one_sided_pieces_stay_one_sided():
    inst = load_instance(ROOT / "instances" / "polyform-puzzler" / "one-sided-tetrominoes-6x5.py")
    assert len(inst.rules) == 7 and {r.orient for r in inst.rules} == {"one-sided"}
    # the seven one-sided tetrominoes: no two the same up to rotation
    assert len({canonical(r.piece.cells, "one-sided") for r in inst.rules}) == 7


def module(body: str, base: str = "Pentominoes") -> str:
    return f"import puzzler\nfrom puzzler.puzzles.polyominoes import {base}\n\nclass P({base}):\n" + body


def test_y_counts_upwards():
    # a hole at (0, 0): Polyform Puzzler's bottom left is the instance's last row, first column
    text = read_puzzler(module("    width = 3\n    height = 2\n    def coordinates(self):\n"
                               "        return [(x, y) for y in range(2) for x in range(3) if (x, y) != (0, 0)]\n",
                               "Trominoes"), "t.py")
    assert text.splitlines()[-2:] == ["...", "#.."]


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 9), st.integers(1, 9), st.data())
def test_a_board_written_as_a_coordinates_method_reads_back(width, height, data):
    holes = data.draw(st.sets(st.tuples(st.integers(0, width - 1), st.integers(0, height - 1)),
                              max_size=width * height - 1))
    body = (f"    width = {width}\n    height = {height}\n\n    def coordinates(self):\n"
            f"        holes = set({tuple(sorted(holes))!r})\n"
            "        for y in range(self.height):\n            for x in range(self.width):\n"
            "                if (x, y) in holes:\n                    continue\n"
            "                yield puzzler.coordsys.Cartesian2D((x, y))\n")
    rows = read_puzzler(module(body, "Polyominoes12"), "r.py").splitlines()[-height:]
    cells = {(x, y) for y in range(height) for x in range(width)} - holes
    # the instance crops to the cells' box: compare after the same crop
    xs, ys = [x for x, _ in cells], [y for _, y in cells]
    want = ["".join("." if (x, y) in cells else "#" for x in range(min(xs), max(xs) + 1))
            for y in range(max(ys), min(ys) - 1, -1)]
    assert rows[-len(want):] == want


def test_board_helpers_have_the_documented_sizes():
    assert len(triangle(5)) == 15 and len(double_triangle(3)) == 9
    assert len(diamond(3)) == 13 and len(aztec_diamond(3)) == 24  # the aztec diamond of order n: 2n(n+1)
    assert len(open_box(4, 4, 3)) == 4 * 4 * 3 - 2 * 2 * 2


@pytest.mark.parametrize("body, message", [
    ("    width = 5\n    height = 5\n    def coordinates(self):\n        import os\n        os.system('touch pwned')\n",
     "line 8: an import statement"),
    ("    width = 5\n    height = 5\n    def coordinates(self):\n        while True:\n            pass\n",
     "line 8: a while statement"),
    ("    width = 5\n    height = 5\n    def coordinates(self):\n        return open('/etc/passwd')\n",
     "line 8: the name 'open'"),
    ("    width = 5\n    height = 5\n    def coordinates(self):\n        return [(x, 0) for x in range(100000000)]\n",
     "a range of more than"),
    ("    width = 5\n    height = 5\n    def coordinates(self):\n        return self.__class__.__subclasses__()\n",
     "the attribute self.__class__"),
    ("    width = 5\n", "gives no height"),
])
def test_what_it_cannot_read_is_one_error_naming_the_line(body, message):
    with pytest.raises(TilesatError, match=re.escape(message)):
        read_puzzler(module(body), "bad.py")


def test_unknown_base_class():
    with pytest.raises(TilesatError, match="'Polysticks' is not a Polyform Puzzler class tilesat knows"):
        read_puzzler("class P(Polysticks):\n    width = 3\n", "s.py")


def test_solve_reads_a_puzzler_file_as_a_process(tmp_path):
    lines = verdict(tilesat("solve", ROOT / "instances" / "polyform-puzzler" / "pentominoes-8x8-centre.py"),
                    r"solved: a tiling with 12 tiles$", 0)
    assert len(lines) == 9 and lines[4][3:5] == "##"
    # a file that would write a file if it were run: read, refused, and nothing written
    evil = tmp_path / "evil.py"
    evil.write_text(module("    width = 5\n    height = 5\n    def coordinates(self):\n"
                           "        __import__('os').system('touch ' + 'pwned')\n        return []\n"))
    line = usage_error(tilesat("solve", evil, cwd=tmp_path))
    assert "evil.py, line 8: the name '__import__'" in line
    assert not (tmp_path / "pwned").exists()
    # FILE.py:Class picks a class of a module with several
    two = tmp_path / "two.py"
    two.write_text(module("    width = 10\n    height = 6\n") + "\nclass Q(P):\n    width = 20\n    height = 3\n")
    run = expect(tilesat("count", f"{two}:P"), 0)
    assert run.text.startswith("count: 9,356 tilings")
    run = expect(tilesat("count", two), 0)  # the last class by default
    assert run.text.startswith("count: 8 tilings")
