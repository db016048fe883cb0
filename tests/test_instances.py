"""Every file in instances/ parses, says where it comes from, and gets the
verdict its '; expect:' comment states, with two different encodings."""

import re
from pathlib import Path

import pytest

from tilesat import check_unique, load_instance

FILES = sorted((Path(__file__).resolve().parent.parent / "instances").glob("*.txt"))
SLOW = {"pentomino-3x20.txt", "pentomino-4x15.txt", "pentomino-5x12.txt", "pentomino-6x10.txt"}
#: pieces used once each on the other grids' puzzles: checked by the method auto picks (dlx)
EXACT_COVER = {"pentominoes-one-sided-3x30.txt", "hexiamonds-6x6-rhombus.txt", "solid-pentominoes-2x3x10.txt"}


def test_there_are_instances():
    names = {f.name for f in FILES}
    assert {"pentomino-6x10.txt", "torus-x5-5x5.txt", "tromino-64x64-hole.txt", "lpanel-12x12.txt"} <= names


@pytest.mark.parametrize(
    "path", [pytest.param(f, marks=pytest.mark.slow) if f.name in SLOW else f for f in FILES], ids=lambda f: f.name
)
def test_instance_verdict(path):
    text = path.read_text()
    assert text.startswith(";"), "each instance starts with a comment on its origin"
    expect = re.search(r"^; expect: (\w+)", text, re.M)
    assert expect, "each instance states its verdict"
    inst = load_instance(path)
    if path.name in EXACT_COVER:
        # dancing links (auto) answers in about a second; ladder and pairwise took 128 s on the
        # 3x30 board in a test run, and the SAT path's answers are compared on small boards elsewhere
        assert check_unique(inst).verdict == expect.group(1)
        return
    for encoding in ("ladder", "pairwise"):
        assert check_unique(inst, encoding=encoding).verdict == expect.group(1)
