"""tilesat tromino: Golomb's construction and the SAT pipeline, verified."""

import random

import numpy as np
import pytest
from typer.testing import CliRunner

from tilesat.cli import app
from tilesat.making.tromino import check_tromino_array, golomb

runner = CliRunner()


def read_board(text):
    """The printed board back as numbers (the hole as 0), checked by the
    test's own rules: each number on three cells inside one 2x2 square."""
    rows = [[0 if tok == "X" else int(tok) for tok in line.split()] for line in text.strip().splitlines()]
    ids = np.array(rows)
    holes = np.argwhere(ids == 0)
    assert len(holes) == 1
    cells = {}
    for (r, c), v in np.ndenumerate(ids):
        if v:
            cells.setdefault(v, []).append((r, c))
    assert len(cells) == (ids.size - 1) // 3
    for v, cs in cells.items():
        rs, cols = zip(*cs)
        assert len(cs) == 3 and max(rs) - min(rs) == 1 and max(cols) - min(cols) == 1, v
    return ids, tuple(holes[0])


def holes_for(n):
    size = 1 << n
    if n <= 3:
        return [(r, c) for r in range(size) for c in range(size)]
    rng = random.Random(n)
    return [(rng.randrange(size), rng.randrange(size)) for _ in range(3)]


@pytest.mark.parametrize("n", range(1, 9))
def test_golomb_every_hole_small_random_holes_large(n):
    for hole in holes_for(n):
        res = runner.invoke(app, ["tromino", str(n), "--hole", f"{hole[0]},{hole[1]}"])
        assert res.exit_code == 0, res.output
        ids, found = read_board(res.stdout)
        assert found == hole and ids.shape == (1 << n, 1 << n)


@pytest.mark.parametrize("n", range(1, 5))
def test_sat_method(n):
    for hole in holes_for(n)[:4]:
        res = runner.invoke(app, ["tromino", str(n), "--hole", f"{hole[0]},{hole[1]}", "--method", "sat"])
        assert res.exit_code == 0, res.output
        assert read_board(res.stdout)[1] == hole


def test_checker_rejects_wrong_arrays():
    ids = golomb(3, (2, 5))
    check_tromino_array(ids, (2, 5))
    with pytest.raises(AssertionError):
        check_tromino_array(ids, (0, 0))
    bad = ids.copy()
    bad[0, 0], bad[7, 7] = bad[7, 7], bad[0, 0]
    with pytest.raises(AssertionError):
        check_tromino_array(bad, (2, 5))


@pytest.mark.slow
def test_n12_vectorised():
    ids = golomb(12, (4000, 17))
    check_tromino_array(ids, (4000, 17))


def test_seed_out_pictures_and_errors(tmp_path):
    out = tmp_path / "t.txt"
    res = runner.invoke(app, ["tromino", "5", "--seed", "4", "--out", str(out), "--png", str(tmp_path / "t.png"), "--svg", str(tmp_path / "t.svg")])
    assert res.exit_code == 0, res.output
    again = runner.invoke(app, ["tromino", "5", "--seed", "4"])
    assert again.stdout == out.read_text()
    read_board(out.read_text())
    assert (tmp_path / "t.svg").read_text().count('class="tile"') == (32 * 32 - 1) // 3
    for args, message in ((["0"], "between 1 and 13"), (["3", "--hole", "8,0"], "off the 8x8"),
                          (["3", "--hole", "x"], "use R,C"), (["3", "--method", "magic"], "unknown tromino method"),
                          (["3", "--out", str(out)], "exists")):
        res = runner.invoke(app, ["tromino", *args])
        assert res.exit_code == 2 and message in res.output, res.output
