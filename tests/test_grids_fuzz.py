"""tilesat fuzz --grid: random boards on the triangle, hex and cube grids,
checked against the oracle (which turns pieces on every grid itself); a
planted bug is found there and written out as an instance of that grid."""

import json

from hypothesis import given, settings
from typer.testing import CliRunner

from tilesat.cli import app
from tilesat.making.fuzz import FUZZ_GRIDS, instances
from tilesat.model.instance import load_instance

runner = CliRunner()

# pairwise, but with three literals the pair (2, 3) is forgotten (as in test_fuzz)
BROKEN_ENCODING = """
import numpy as np

def exactly_one(lits, top):
    n = lits.shape[1]
    i, j = np.triu_indices(n, 1)
    if n == 3:
        i, j = i[:-1], j[:-1]
    return [lits, np.stack([-lits[:, i].ravel(), -lits[:, j].ravel()], axis=1)], top
"""


def test_the_examples_cover_every_grid_within_max_cells():
    seen = {}

    @settings(max_examples=120, database=None, derandomize=True)
    @given(instances(max_cells=12, grids=["all"]))
    def check(instance):
        board = instance.board
        assert board.ncells <= 12 and 1 <= len(instance.rules) <= 3
        assert all(r.piece.grid == board.grid for r in instance.rules)
        assert board.is_square or board.wrap == "none"
        seen[board.grid] = seen.get(board.grid, 0) + 1

    check()
    assert set(seen) == set(FUZZ_GRIDS)


def test_a_broken_encoding_is_found_on_hex_boards_and_written(tmp_path):
    plugin = tmp_path / "broken.py"
    plugin.write_text(BROKEN_ENCODING)
    spec = f"{plugin}:exactly_one"
    out = tmp_path / "found"
    res = runner.invoke(app, ["fuzz", "--grid", "hex", "--encodings", spec, "--solvers", "cadical195",
                              "--examples", "150", "--seed", "5", "--out", str(out)])
    assert res.exit_code == 1, res.output
    instance = load_instance(out / "instance.txt")
    assert instance.board.grid == "hex" and instance.board.ncells <= 8
    report = (out / "report.txt").read_text()
    assert "hex grid" in report and "--grid hex" in report


def test_agreement_line_and_json_name_the_grids():
    res = runner.invoke(app, ["fuzz", "--grid", "triangle,cube", "--encodings", "pairwise", "--solvers",
                              "cadical195", "--examples", "6", "--seed", "1", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["agreed"] and data["grids"] == ["triangle", "cube"] and data["examples"] == 6


def test_an_unknown_grid_is_one_line():
    res = runner.invoke(app, ["fuzz", "--grid", "octagon", "--examples", "1"])
    assert res.exit_code == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --grid 'octagon'")
