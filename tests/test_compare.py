"""tilesat compare: the matrix, agreement, a broken encoding caught, timeouts, outputs."""

import csv
import json
import shutil

import pytest
from test_cli import INSTANCES, run

from tilesat import load_instance
from tilesat.making.compare import compare
from tilesat.sat.encodings import ENCODINGS, pairwise


def forgets_the_last_candidate(lits, top):
    """A deliberately broken exactly-one: pairwise, but the last literal of
    every constraint is forbidden (too strong: real tilings are lost)."""
    blocks, top = pairwise.exactly_one(lits, top)
    if lits.shape[1] > 1:
        blocks = blocks + [-lits[:, -1:]]
    return blocks, top


def test_full_matrix_agrees_and_is_written(tmp_path):
    out = {k: tmp_path / f"m.{k}" for k in ("csv", "json", "png")}
    res = run("compare", INSTANCES / "lpanel-8x8.txt", INSTANCES / "lpanel-4x8-multiple.txt", "--encodings", "all",
              "--solvers", "cadical195,glucose4", "--repeat", "2",
              "--csv", out["csv"], "--json", out["json"], "--plot", out["png"])
    assert res.exit_code == 0, res.output
    assert f"all {2 * len(ENCODINGS) * 2} finished runs agree" in res.output
    rows = list(csv.DictReader(out["csv"].open()))
    assert len(rows) == 2 * len(ENCODINGS) * 2
    verdicts = {(r["instance"], r["verdict"]) for r in rows}
    assert verdicts == {("lpanel-8x8.txt", "unique"), ("lpanel-4x8-multiple.txt", "multiple")}
    data = json.loads(out["json"].read_text())
    assert all(len(r["solve"]) == 2 and r["solve_min"] <= r["solve_median"] <= r["solve_max"] for r in data["runs"])
    sizes = {(r["encoding"], r["clauses"]) for r in data["runs"] if r["instance"] == "lpanel-8x8.txt"}
    assert len({e for e, _ in sizes}) == len(ENCODINGS) == len(sizes)  # one size per encoding, same for both solvers
    assert out["png"].read_bytes()[:4] == b"\x89PNG"
    for line in res.output.splitlines():
        if "pairwise" in line and "lpanel-8x8" in line:
            assert line.split()[-2] == "unique"  # the last column, before the border


def test_a_broken_encoding_is_caught_as_a_disagreement(monkeypatch):
    monkeypatch.setitem(ENCODINGS, "broken", forgets_the_last_candidate)
    res = run("compare", INSTANCES / "lpanel-8x8.txt", "--encodings", "pairwise,broken,ladder",
              "--solvers", "cadical195,glucose4")
    assert res.exit_code == 1, res.output
    line = next(line for line in res.output.splitlines() if line.startswith("DISAGREEMENT"))
    assert "broken+cadical195" in line and "broken+glucose4" in line and "pairwise+cadical195" in line


def test_counts_must_agree_too(monkeypatch):
    monkeypatch.setitem(ENCODINGS, "broken", forgets_the_last_candidate)
    inst = load_instance(INSTANCES / "lpanel-4x8-multiple.txt")
    result = compare([("b", inst)], ["pairwise", "commander", "broken"], ["cadical195"], task="count")
    counts = {r.encoding: r.verdict for r in result.runs}
    assert counts["pairwise"] == counts["commander"] != counts["broken"]
    assert len(result.disagreements()) == 1


def test_timeout_is_shown_and_the_matrix_goes_on(tmp_path):
    board = tmp_path / "hard.txt"
    board.write_text("pieces: pentominoes:1\n" + ("." * 10 + "\n") * 6)
    res = run("compare", board, INSTANCES / "lpanel-8x8.txt", "--encodings", "pairwise,ladder", "--solvers",
              "cadical195", "--task", "count", "--timeout", "2")
    assert res.exit_code == 0, res.output
    # the 6x10 count (9356 tilings, one SAT call each) cannot finish in 2 s; the 8x8 L-Panel's
    # can (0.5 s was too tight for it on a loaded machine: 3 timed out once)
    assert res.output.count("timeout") >= 2
    assert "all 2 finished runs agree; 2 timed out" in res.output


@pytest.mark.parametrize("args,words", [
    (["--encodings", "nosuch"], "unknown encoding"),
    (["--solvers", "nosuch"], "unknown solver"),
    (["--task", "maybe"], "unknown task"),
    pytest.param(["--solvers", "ext:cadical"], "PySAT", marks=pytest.mark.skipif(
        shutil.which("cadical") is None, reason="Debian's cadical is not installed")),
])
def test_bad_options(args, words):
    res = run("compare", INSTANCES / "lpanel-8x8.txt", *args)
    assert res.exit_code == 2 and words in res.output and len(res.output.strip().splitlines()) == 1


def test_outputs_are_not_overwritten(tmp_path):
    (tmp_path / "x.csv").write_text("keep")
    res = run("compare", INSTANCES / "lpanel-8x8.txt", "--csv", tmp_path / "x.csv")
    assert res.exit_code == 2 and (tmp_path / "x.csv").read_text() == "keep"


def test_ctrl_c_keeps_the_finished_rows():
    """Was: compare dropped every finished row when interrupted."""
    instance = load_instance(INSTANCES / "lpanel-6x6.txt")
    calls = []

    def progress(label, done, total):
        calls.append(done)
        if done == 2:
            raise KeyboardInterrupt

    result = compare([("six", instance)], ["pairwise", "ladder", "bitwise"], ["cadical195"], "unique",
                     progress=progress)
    assert result.interrupted
    assert [r.encoding for r in result.runs] == ["pairwise", "ladder"]
    assert all(r.status == "ok" and r.verdict == "unique" for r in result.runs)


def test_ctrl_c_in_the_cli_prints_the_table_and_exits_130(monkeypatch):
    import tilesat.making.compare as module

    real = module.run_isolated
    seen = []

    def interrupt_on_third(*args, **kwargs):
        seen.append(1)
        if len(seen) == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "run_isolated", interrupt_on_third)
    res = run("compare", INSTANCES / "lpanel-6x6.txt", "--encodings", "pairwise,ladder,bitwise", "--solvers", "cadical195")
    assert res.exit_code == 130
    assert "pairwise" in res.output and "ladder" in res.output and "2 of 3 cells finished" in res.output
