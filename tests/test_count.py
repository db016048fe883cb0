"""tilesat count --method blocking: known counts, --limit, --json, external
solvers, Ctrl-C."""

import json
import shutil

import pytest
from typer.testing import CliRunner

from tilesat.cli import app

runner = CliRunner()


def count(tmp_path, text, *args):
    f = tmp_path / "b.txt"
    f.write_text(text)
    res = runner.invoke(app, ["count", str(f), "--json", *args])
    assert "Traceback" not in res.output, res.output
    return res


def fib(n):
    a, b = 1, 1
    for _ in range(n):
        a, b = b, a + b
    return a


@pytest.mark.parametrize("n", range(1, 9))
def test_dominoes_2xn_fibonacci(tmp_path, n):
    data = json.loads(count(tmp_path, "pieces: I2\n" + ("." * n + "\n") * 2).output)
    assert data["count"] == fib(n) and data["exact"] and data["method"] == "blocking"


@pytest.mark.parametrize("n", range(1, 5))
@pytest.mark.parametrize("encoding", ["pairwise", "ladder", "bitwise"])
def test_l_trominoes_2x3n(tmp_path, n, encoding):
    data = json.loads(count(tmp_path, "pieces: L3\n" + ("." * (3 * n) + "\n") * 2, "--encoding", encoding).output)
    assert data["count"] == 2**n and data["exact"]


def test_limit_reports_at_least(tmp_path):
    res = count(tmp_path, "pieces: I2\n" + "......\n" * 2, "--limit", "5")
    data = json.loads(res.output)
    assert res.exit_code == 0 and data["count"] == 5 and data["exact"] is False
    res = runner.invoke(app, ["count", str(tmp_path / "b.txt"), "--limit", "5"])
    assert res.output.startswith("count: at least 5 tilings (stopped at --limit)")


def test_none_and_bad_method(tmp_path):
    data = json.loads(count(tmp_path, "pieces: I2\n...\n...\n...\n").output)
    assert data["count"] == 0 and data["exact"]
    res = count(tmp_path, "pieces: I2\n..\n", "--method", "nosuch")
    assert res.exit_code == 2 and "unknown count method 'nosuch'" in res.output


@pytest.mark.skipif(shutil.which("picosat") is None, reason="Debian's picosat is not installed")
def test_external_solver_counts_the_same(tmp_path):
    data = json.loads(count(tmp_path, "pieces: I2\n" + "......\n" * 2, "--solver", "ext:picosat").output)
    assert data["count"] == fib(6) and data["solver"] == "ext:picosat"


def test_ctrl_c_prints_the_lower_bound(tmp_path, monkeypatch):
    import tilesat.search as search

    real_next = search.TilingSearch.next
    calls = {"n": 0}

    def next_until_interrupt(self):
        calls["n"] += 1
        if calls["n"] == 4:
            raise KeyboardInterrupt
        return real_next(self)

    monkeypatch.setattr(search.TilingSearch, "next", next_until_interrupt)
    f = tmp_path / "b.txt"
    f.write_text("pieces: I2\n" + "........\n" * 2)
    res = runner.invoke(app, ["count", str(f)])
    assert res.exit_code == 130
    assert res.output.startswith("count: at least 3 tilings (interrupted)")


def test_list_writes_verified_jsonl_and_pictures(tmp_path):
    from tilesat import parse_instance, verify_tiling
    from tilesat.tiling import Tiling

    text = "pieces: L3\n" + "......\n" * 2
    f = tmp_path / "b.txt"
    f.write_text(text)
    out, png, svg = tmp_path / "t.jsonl", tmp_path / "t.png", tmp_path / "t.svg"
    res = runner.invoke(app, ["list", str(f), "--out", str(out), "--png", str(png), "--svg", str(svg)])
    assert res.exit_code == 0, res.output
    lines = out.read_text().splitlines()
    inst = parse_instance(text)
    tilings = {Tiling.from_json(json.loads(line)) for line in lines}
    assert len(lines) == len(tilings) == 4
    for t in tilings:
        verify_tiling(inst, t)
    assert png.stat().st_size > 0 and svg.read_text().count('class="tile"') == 4 * 4
    res = runner.invoke(app, ["list", str(f), "--limit", "3"])
    assert res.output.count("tiling ") == 3 and "listed the first 3 tilings" in res.output
    res = runner.invoke(app, ["list", str(f), "--out", str(out)])
    assert res.exit_code == 2 and "exists" in res.output
