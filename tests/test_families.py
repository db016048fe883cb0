"""export-family (benchmark families with known answers) and compare over a directory with a cactus plot."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.solvers import Solver
from test_cli import INSTANCES, run
from test_cli_edges import one_error_line

from tilesat.making.compare import Entry, compare, expected_verdicts, load_directory
from tilesat.questions.count import count_tilings
from tilesat.sat.dimacs import read_dimacs
from tilesat.errors import TilesatError
from tilesat.making.families import FAMILIES, parse_sizes, write_family
from tilesat.model.instance import parse_instance
from tilesat.questions.pack import pack
from tilesat.questions.solve import check_unique
from tilesat.model.tiling import Tiling
from tilesat.sat.options import SatOptions
from tilesat.certify.verify import verify_tiling

SMALL = {"lpanel": "6,8", "hard-packing": "6x8", "mutilated": "2,4,6", "pentomino-rectangles": "3",
         "packing": "5,6"}


def _written(tmp_path, family):
    out = tmp_path / family
    res = run("export-family", family, "--sizes", SMALL[family], "--out", out)
    assert res.exit_code == 0, res.output
    index = json.loads((out / f"index-{family}.json").read_text())
    return out, index


@pytest.mark.parametrize("family", FAMILIES)
def test_export_family_writes_what_it_says_and_the_answers_are_tilesats(tmp_path, family):
    out, index = _written(tmp_path, family)
    per_size = 2 if family == "packing" else 1
    assert len(index["instances"]) == per_size * len(SMALL[family].split(","))
    for item in index["instances"]:
        meta = json.loads((out / item["metadata"]).read_text())
        assert meta["expected"] == item["expected"] and meta["family"] == family and meta["generator"]
        assert meta["expected"]["how"]
        nvars, clauses = read_dimacs(out / meta["cnf"])  # parses strictly
        assert (nvars, len(clauses)) == (meta["variables"], meta["clauses"])
        instance = parse_instance(meta["instance"])
        # the DIMACS itself answers the question as expected
        with Solver(name="cadical195", bootstrap_with=clauses) as s:
            assert s.solve() == (meta["expected"]["answer"] == "SAT"), meta["name"]
        # and so does tilesat, by its own route
        if meta["question"] == "pack":
            result = pack(instance)
            assert result.proved
            assert result.optimum == meta["parameters"]["optimum"]
            assert (result.optimum >= meta["at_least"]) == (meta["expected"]["answer"] == "SAT")
        else:
            tilings = meta["expected"]["tilings"]
            if tilings is not None:
                assert count_tilings(instance).count == tilings, meta["name"]
            else:
                assert check_unique(instance).verdict in ("unique", "multiple")
        if family == "hard-packing":  # the witness kept in the metadata is a tiling of the board
            verify_tiling(instance, Tiling.from_json(meta["intended_tiling"]))
        if family == "lpanel":
            assert check_unique(instance).verdict == "unique"


def test_metadata_sizes_are_the_written_files_whatever_the_encoding(tmp_path):
    for encoding in ("native", "commander", "auto"):
        out = tmp_path / encoding
        write_family("packing", [(5, 5)], out, options=SatOptions(encoding))
        for name in ("packing-5x5-optimum", "packing-5x5-beyond"):
            meta = json.loads((out / f"{name}.json").read_text())
            nvars, clauses = read_dimacs(out / meta["cnf"])
            assert (nvars, len(clauses)) == (meta["variables"], meta["clauses"])
            with Solver(name="cadical195", bootstrap_with=clauses) as s:
                assert s.solve() == name.endswith("optimum")


def test_a_family_is_the_same_for_a_seed_and_differs_for_another(tmp_path):
    for name, seed in (("a", 3), ("b", 3), ("c", 4)):
        write_family("hard-packing", [(8, 8)], tmp_path / name, seed=seed)
    text = {n: (tmp_path / n / "hard-packing-8x8.cnf").read_text() for n in "abc"}
    assert text["a"] == text["b"] != text["c"]


def test_nothing_is_overwritten_without_force(tmp_path):
    out, _ = _written(tmp_path, "mutilated")
    before = (out / "mutilated-4x4.cnf").read_text()
    (out / "mutilated-4x4.cnf").write_text("mine")
    line = one_error_line(run("export-family", "mutilated", "--sizes", "4", "--out", out))
    assert "exists" in line and "--force" in line
    assert (out / "mutilated-4x4.cnf").read_text() == "mine"
    assert run("export-family", "mutilated", "--sizes", "4", "--out", out, "--force").exit_code == 0
    assert (out / "mutilated-4x4.cnf").read_text() == before


@pytest.mark.parametrize("args, says", [
    (["nosuch", "--sizes", "4"], "unknown family"),
    (["mutilated", "--sizes", "5"], "even squares"),
    (["mutilated", "--sizes", "1002"], "even squares"),
    (["mutilated", "--sizes", "4,4"], "twice"),
    (["mutilated", "--sizes", "4x"], "not a size"),
    (["mutilated", "--sizes", ""], "not a size"),
    (["pentomino-rectangles", "--sizes", "7x9"], "pentomino boards"),
    (["packing", "--sizes", "5x6"], "squares"),
    (["lpanel", "--sizes", "3"], "4x4"),
    (["packing", "--sizes", "5", "--piece", "Q9"], "unknown piece"),
    (["mutilated", "--sizes", "4", "--piece", "T5"], "fixed pieces"),
    (["packing", "--sizes", "5", "--piece", "T5:3"], "one piece"),
    (["mutilated", "--sizes", "4", "--encoding", "nosuch"], "nosuch"),
])
def test_bad_input_is_one_line(tmp_path, args, says):
    line = one_error_line(run("export-family", *args, "--out", tmp_path / "o"))
    assert says in line
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 200), st.integers(1, 200))
def test_sizes_read_back(rows, cols):
    family = "mutilated" if rows == cols and rows % 2 == 0 else "hard-packing"
    if family == "hard-packing" and (rows < 4 or cols < 4):
        with pytest.raises(TilesatError):
            parse_sizes(f"{rows}x{cols}", family)
        return
    assert parse_sizes(f"{rows}x{cols}, {rows}x{cols + 1}" if family == "hard-packing" else f"{rows}", family)[0] \
        == (rows, cols)


def test_expected_verdicts_follow_the_task():
    sat1 = Entry("a", None, None, {"answer": "SAT", "tilings": 1})
    unsat = Entry("b", None, None, {"answer": "UNSAT", "tilings": 0})
    sat = Entry("c", None, None, {"answer": "SAT", "tilings": None})
    packed = Entry("d", None, 7, {"answer": "UNSAT", "tilings": None})
    assert expected_verdicts(sat1, "solve") == {"solved"} and expected_verdicts(sat1, "unique") == {"unique"}
    assert expected_verdicts(sat1, "count") == {"1"} and expected_verdicts(unsat, "count") == {"0"}
    assert expected_verdicts(sat, "unique") == {"unique", "multiple"} and expected_verdicts(sat, "count") is None
    assert expected_verdicts(packed, "count") == {"none"}  # a packing question is answered by solving, whatever the task
    assert expected_verdicts(Entry("e", None), "solve") is None


def _small_directory(tmp_path):
    out = tmp_path / "fam"
    for family, sizes in (("mutilated", "4"), ("packing", "5"), ("lpanel", "6")):
        assert run("export-family", family, "--sizes", sizes, "--out", out).exit_code == 0
    return out


def test_out_must_be_a_directory_one_line(tmp_path):
    (tmp_path / "f").write_text("x")
    assert "not a directory" in one_error_line(run("export-family", "mutilated", "--sizes", "4", "--out", tmp_path / "f"))
    line = one_error_line(run("export-family", "mutilated", "--sizes", "4", "--out", tmp_path / "f" / "sub"))
    assert "cannot create" in line


def test_compare_over_a_directory_checks_answers_and_draws_a_cactus_plot(tmp_path):
    out = _small_directory(tmp_path)
    (out / "loose.cnf").write_text("p cnf 1 1\n1 0\n")  # no metadata: left out, with a note
    (out / "x5.txt").write_text((INSTANCES / "torus-x5-5x5.txt").read_text())  # an instance file with 'expect:'
    plot, data = tmp_path / "cactus.svg", tmp_path / "runs.json"
    res = run("compare", out, "--encodings", "pairwise,commander", "--solvers", "cadical195", "--task", "solve",
              "--plot", plot, "--json", data)
    assert res.exit_code == 0, res.output
    assert "loose.cnf: left out" in res.output
    runs = json.loads(data.read_text())["runs"]
    assert {r["instance"] for r in runs} == {"mutilated-4x4", "packing-5x5-optimum", "packing-5x5-beyond",
                                             "lpanel-6x6", "x5.txt"}
    assert {(r["instance"], r["verdict"]) for r in runs if r["instance"].startswith("packing")} == {
        ("packing-5x5-optimum", "solved"), ("packing-5x5-beyond", "none")}
    assert "10 matched the expected answer" in res.output
    svg = plot.read_text()
    assert svg.startswith("<?xml") and "instances solved" in svg
    assert "commander+cadical195 (5)" in svg and "pairwise+cadical195 (5)" in svg  # all 5 solved, per line
    # a png too, and the plain file list keeps its bar chart
    png = tmp_path / "c.png"
    assert run("compare", out, "--encodings", "pairwise", "--solvers", "cadical195", "--task", "solve",
               "--plot", png).exit_code == 0
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_a_wrong_answer_is_reported_loudly(tmp_path):
    out = _small_directory(tmp_path)
    meta_path = out / "mutilated-4x4.json"
    meta = json.loads(meta_path.read_text())
    meta["expected"] = {"answer": "SAT", "tilings": None, "how": "a planted lie"}
    meta_path.write_text(json.dumps(meta))
    data = tmp_path / "runs.json"
    res = run("compare", out, "--encodings", "pairwise", "--solvers", "cadical195", "--task", "solve", "--json", data)
    assert res.exit_code == 1, res.output
    assert [w.split(":")[0] for w in json.loads(data.read_text())["wrong_answers"]] == ["mutilated-4x4"]
    assert "WRONG ANSWER: mutilated-4x4: pairwise+cadical195 says none, expected solved (known: a planted lie)" \
        in " ".join(res.output.split())


def test_counts_are_checked_with_task_count(tmp_path):
    entries = load_directory(_small_directory(tmp_path))
    result = compare([e for e in entries if e.name.startswith(("mutilated", "lpanel"))], ["pairwise"], ["cadical195"],
                     task="count")
    assert {r.verdict for r in result.runs} == {"0", "1"} and result.wrong_answers() == []
    lie = [Entry(e.name, e.instance, e.at_least, {**e.expected, "tilings": 2}) for e in entries if e.name == "lpanel-6x6"]
    assert compare(lie, ["pairwise"], ["cadical195"], task="count").wrong_answers()


def test_a_directory_twice_is_one_line(tmp_path):
    out = tmp_path / "fam"
    write_family("mutilated", [(4, 4)], out)
    line = one_error_line(run("compare", out, out, "--encodings", "pairwise", "--solvers", "cadical195"))
    assert "two instances are named mutilated-4x4" in line


@pytest.mark.parametrize("content, says", [
    (None, "no instances"),
    ('{"instance": "pieces: Q9\\n..\\n"}', "bad metadata"),
    ('{"instance": "pieces: I2\\n..\\n", "expected": {"answer": "maybe"}}', "bad metadata"),
    ("{not json", "cannot read its JSON"),
])
def test_a_bad_directory_is_one_line(tmp_path, content, says):
    d = tmp_path / "d"
    d.mkdir()
    if content is not None:
        (d / "m.json").write_text(content)
    line = one_error_line(run("compare", d, "--encodings", "pairwise", "--solvers", "cadical195"))
    assert says in line
