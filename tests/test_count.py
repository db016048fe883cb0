"""tilesat count and list: known counts by every method, symmetry classes,
--limit, --jobs, --json, external solvers, Ctrl-C."""

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


EXACT = ["blocking", "ganak", "dlx", "native", "xcc"]


@pytest.mark.parametrize("method", EXACT)
@pytest.mark.parametrize("n", range(1, 9))
def test_dominoes_2xn_fibonacci(tmp_path, n, method):
    data = json.loads(count(tmp_path, "pieces: I2\n" + ("." * n + "\n") * 2, "--method", method).output)
    assert data["count"] == fib(n) and data["exact"] and data["method"] == method


@pytest.mark.parametrize("n", range(1, 5))
@pytest.mark.parametrize("encoding", ["pairwise", "ladder", "bitwise"])
@pytest.mark.parametrize("method", EXACT)
def test_l_trominoes_2x3n(tmp_path, n, encoding, method):
    # dancing links uses no encoding: giving one is a usage error (test_options_a_method_cannot_use)
    options = ["--encoding", encoding] if method in ("blocking", "ganak") else []
    data = json.loads(count(tmp_path, "pieces: L3\n" + ("." * (3 * n) + "\n") * 2, *options,
                            "--method", method).output)
    assert data["count"] == 2**n and data["exact"]


def test_auto_says_which_method_and_why(tmp_path):
    data = json.loads(count(tmp_path, "pieces: I2\n" + "......\n" * 4).output)
    assert data["method"] == "pfaffian" and "Kasteleyn" in data["why"] and data["count"] == 281
    data = json.loads(count(tmp_path, "pieces: I2\n" + "......\n" * 4, "--up-to-symmetry").output)
    by_ganak = json.loads(count(tmp_path, "pieces: I2\n" + "......\n" * 4, "--up-to-symmetry", "--method", "ganak").output)
    assert data["method"] == "pfaffian" and "Burnside" in data["why"] and data["count"] == 281  # tilesat.engines.burnside
    assert data["up_to_symmetry"] == by_ganak["up_to_symmetry"]
    data = json.loads(count(tmp_path, "pieces: L3\n" + "......\n" * 4).output)
    assert data["method"] == "frontier" and "frontier of" in data["why"]
    by_ganak = json.loads(count(tmp_path, "pieces: L3\n" + "......\n" * 4, "--up-to-symmetry").output)
    assert by_ganak["method"] == "frontier" and "Burnside" in by_ganak["why"] and by_ganak["count"] == data["count"]
    text = "pieces: pentominoes:1\n" + "." * 20 + "\n" + ("." * 20 + "\n") * 2
    data = json.loads(count(tmp_path, text).output)
    assert data["method"] == "native" and "bounded count" in data["why"] and data["count"] == 8
    data = json.loads(count(tmp_path, text, "--up-to-symmetry").output)
    assert data["method"] == "native" and data["up_to_symmetry"] == 2
    data = json.loads(count(tmp_path, "pieces: I2:2..3, L3\n" + "......\n" * 2).output)
    assert data["method"] == "frontier" and data["exact"]  # L3 unbounded: not native's kind
    data = json.loads(count(tmp_path, "pieces: I2:2..3, L3\n" + "......\n" * 2, "--up-to-symmetry").output)
    assert data["method"] == "frontier" and data["exact"]
    # a window of 26 cells (the shape W spans the row): past the frontier's reach
    text = "shape: W #" + "." * 25 + "#\npieces: I2:2..3, W\n" + "." * 27 + "\n"
    data = json.loads(count(tmp_path, text, "--up-to-symmetry").output)
    assert data["method"] == "xcc" and "exact cover" in data["why"]
    res = runner.invoke(app, ["count", str(tmp_path / "b.txt"), "--up-to-symmetry"])
    assert res.output.startswith("count: ") and "by xcc (exact cover with piece count ranges" in res.output
    by_blocking = json.loads(count(tmp_path, text, "--up-to-symmetry", "--method", "blocking").output)
    assert (by_blocking["count"], by_blocking["up_to_symmetry"]) == (data["count"], data["up_to_symmetry"])


@pytest.mark.parametrize("rows,cols,raw,classes", [(3, 20, 8, 2), (4, 15, 1472, 368), (5, 12, 4040, 1010), (6, 10, 9356, 2339)])
def test_pentomino_rectangles_up_to_symmetry(tmp_path, rows, cols, raw, classes):
    data = json.loads(count(tmp_path, "pieces: pentominoes:1\n" + ("." * cols + "\n") * rows, "--up-to-symmetry").output)
    assert (data["count"], data["up_to_symmetry"], data["group_order"]) == (raw, classes, 4)
    assert data["exact"] and data["method"] == "native"


def test_6x10_split_into_processes_adds_up(tmp_path):
    text = "pieces: pentominoes:1\n" + ("." * 10 + "\n") * 6
    data = json.loads(count(tmp_path, text, "--jobs", "2", "--method", "dlx").output)
    assert data["count"] == 9356 and data["jobs"] == 2 and data["units"] > 1


def test_3x20_every_exact_method_and_jobs_agree(tmp_path):
    text = "pieces: pentominoes:1\n" + ("." * 20 + "\n") * 3
    for args in (["--method", "blocking"], ["--method", "blocking", "--jobs", "2"], ["--method", "dlx", "--jobs", "2"]):
        data = json.loads(count(tmp_path, text, "--up-to-symmetry", *args).output)
        assert (data["count"], data["up_to_symmetry"]) == (8, 2), args


def test_dominoes_8x8_ganak(tmp_path):
    data = json.loads(count(tmp_path, "pieces: I2\n" + "........\n" * 8, "--method", "ganak").output)
    assert data["count"] == 12_988_816 and data["exact"]


@pytest.mark.slow
def test_dominoes_12x12_ganak(tmp_path):
    data = json.loads(count(tmp_path, "pieces: I2\n" + ("." * 12 + "\n") * 12, "--method", "ganak").output)
    assert data["count"] == 53_060_477_521_960_000 and data["exact"]


def test_dominoes_6x6_ganak_and_dlx_agree_up_to_symmetry(tmp_path):
    text = "pieces: I2\n" + "......\n" * 6
    answers = set()
    for args in (["--method", "ganak"], ["--method", "dlx"], ["--method", "ganak", "--jobs", "2"]):
        data = json.loads(count(tmp_path, text, "--up-to-symmetry", *args).output)
        assert data["group_order"] == 8
        answers.add((data["count"], data["up_to_symmetry"]))
    assert len(answers) == 1 and answers.pop()[0] == 6728


def test_approx_is_marked_as_an_estimate(tmp_path):
    res = count(tmp_path, "pieces: I2\n" + "......\n" * 4, "--method", "approx")
    data = json.loads(res.output)
    assert data["exact"] is False and data["estimate"] == {"epsilon": 0.8, "delta": 0.2}
    assert 281 / 1.8 <= data["count"] <= 281 * 1.8
    res = runner.invoke(app, ["count", str(tmp_path / "b.txt"), "--method", "approx"])
    assert res.output.startswith("count: about ") and "ApproxMC estimate" in res.output


def test_bad_combinations_are_one_line_errors(tmp_path):
    text = "pieces: I2:2..3, L3\n" + "......\n" * 2
    for args, words in ((["--method", "dlx"], "exact cover expresses"),
                        (["--limit", "3", "--up-to-symmetry"], "--limit"),
                        (["--limit", "3", "--method", "ganak"], "--limit"),
                        (["--jobs", "0"], "--jobs"),
                        (["--method", "approx", "--delta", "1.5"], "--delta"),
                        (["--method", "approx", "--epsilon", "0"], "--epsilon")):
        res = count(tmp_path, text, *args)
        assert res.exit_code == 2 and words in res.output, (args, res.output)


def test_limit_reports_at_least(tmp_path):
    for method in ("blocking", "dlx", "auto"):
        res = count(tmp_path, "pieces: I2\n" + "......\n" * 2, "--limit", "5", "--method", method)
        data = json.loads(res.output)
        assert res.exit_code == 0 and data["count"] == 5 and data["exact"] is False
    res = runner.invoke(app, ["count", str(tmp_path / "b.txt"), "--limit", "5"])
    assert res.output.startswith("count: at least 5 tilings (stopped at --limit)")


def test_none_and_bad_method(tmp_path):
    data = json.loads(count(tmp_path, "pieces: I2\n...\n...\n...\n").output)
    assert data["count"] == 0 and data["exact"]
    res = count(tmp_path, "pieces: I2\n..\n", "--method", "nosuch")
    assert res.exit_code == 2 and "unknown count method 'nosuch'" in res.output
    for method in EXACT:  # a quick check answers 0 for every method
        data = json.loads(count(tmp_path, "pieces: I2\n...\n", "--method", method).output)
        assert data["count"] == 0 and data["exact"] and "no combination" in data["reason"]


@pytest.mark.skipif(shutil.which("picosat") is None, reason="Debian's picosat is not installed")
def test_external_solver_counts_the_same(tmp_path):
    data = json.loads(count(tmp_path, "pieces: I2\n" + "......\n" * 2, "--solver", "ext:picosat", "--method", "blocking").output)
    assert data["count"] == fib(6) and data["solver"] == "ext:picosat"


def test_ctrl_c_prints_the_lower_bound(tmp_path, monkeypatch):
    import tilesat.questions.solve as search

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
    res = runner.invoke(app, ["count", str(f), "--method", "blocking"])
    assert res.exit_code == 130
    assert res.output.startswith("count: at least 3 tilings (interrupted)")


def test_list_writes_verified_jsonl_and_pictures(tmp_path):
    from tilesat import parse_instance, verify_tiling
    from tilesat.model.tiling import Tiling

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


def test_list_by_dlx_gives_the_same_verified_tilings(tmp_path):
    from tilesat import parse_instance
    from tilesat.model.tiling import Tiling

    f = tmp_path / "b.txt"
    f.write_text("pieces: L3, I3:0..1\n" + "......\n" * 3)
    sets = []
    for method in ("blocking", "dlx"):
        out = tmp_path / f"{method}.jsonl"
        res = runner.invoke(app, ["list", str(f), "--method", method, "--out", str(out)])
        assert res.exit_code == 0, res.output
        sets.append({Tiling.from_json(json.loads(line)) for line in out.read_text().splitlines()})
    assert sets[0] == sets[1]
    from tilesat.certify.oracle import brute_force_tilings

    truth = brute_force_tilings(["......"] * 3, "none", [("L3", parse_instance("pieces: L3\n.").rule("L3").piece.cells, "free", 0, float("inf")),
                                                         ("I3", ((0, 0), (0, 1), (0, 2)), "free", 0, 1)])
    assert {frozenset((t.piece, frozenset(t.cells)) for t in tiling) for tiling in sets[0]} == truth


# --- every method against the brute-force oracle, on random instances -------

from hypothesis import given, reject, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from tilesat.certify.oracle import TooHard, board_maps, brute_force_tilings, orbit_count  # noqa: E402

from tilesat.engines.registry import engines  # noqa: E402
from test_property import _args, instances  # noqa: E402

from tilesat.engines.dlx import dlx_problem  # noqa: E402
from tilesat.questions.count import count_tilings  # noqa: E402


@settings(max_examples=25)
@given(instances(), st.sampled_from(["commander", "pairwise", "ladder"]))
def test_every_method_counts_like_the_oracle(instance, encoding):
    grid, wrap, pieces = _args(instance)
    try:
        truth = brute_force_tilings(grid, wrap, pieces, node_limit=50_000)
    except TooHard:
        reject()
    if len(truth) > 300:
        reject()  # blocking makes one SAT call per tiling: keep the suite quick
    free = all(r.orient == "free" for r in instance.rules)
    classes = orbit_count(truth, board_maps(grid, wrap, pieces)) if free else None
    methods = ["blocking", "ganak", "native", "xcc"] + (["dlx"] if dlx_problem(instance) is None else [])
    for method in methods:
        for jobs in (1, 2) if method in ("dlx", "native", "xcc") else (1,):
            sat = {"encoding": encoding} if method in ("blocking", "ganak") else {}  # the enumerators take none
            r = count_tilings(instance, method, up_to_symmetry=free, jobs=jobs, **sat)
            assert r.exact and r.count == len(truth), (method, jobs)
            if free:
                assert r.up_to_symmetry == classes, (method, jobs, r.group)
    if len(truth) <= 60:  # below its threshold (73 at epsilon 0.8) ApproxMC counts every model: exact
        r = count_tilings(instance, "approx", encoding=encoding)
        assert r.count == len(truth), ("approx", r.count)  # pyapproxmc 4.3-4.4 said 1 for 2 dominoes on 2x2
    for engine in engines("count").values():  # whole-instance engines: raw counts
        if engine.whole and engine.problem(instance) is None:
            r = count_tilings(instance, engine.name)
            assert r.exact and r.count == len(truth), engine.name


# --- honest options (issue 12) -------------------------------------------

@pytest.mark.parametrize("method, option, value", [
    ("dlx", "--solver", "glucose4"), ("dlx", "--encoding", "ladder"), ("dlx", "--card", "totalizer"),
    ("ganak", "--solver", "glucose4"), ("approx", "--solver", "minisat22"),
])
def test_options_a_method_cannot_use(tmp_path, method, option, value):
    """Was: --solver glucose4 silently ignored by dancing links while the JSON reported it."""
    res = count(tmp_path, "pieces: L3\n" + "......\n" * 2, "--method", method, option, value)
    assert res.exit_code == 2
    line = res.output.strip()
    assert line.startswith(f"error: {option}: --method {method} does not use it; it is for --method")
    assert "blocking" in line and "\n" not in line


def test_solver_option_is_used_by_auto(tmp_path):
    data = json.loads(count(tmp_path, "pieces: L3\n" + "......\n" * 2, "--solver", "glucose4").output)
    assert data["method"] == "blocking" and data["solver"] == "glucose4" and data["count"] == 4


def test_dlx_reports_its_own_engine_and_no_sat_solver(tmp_path):
    """Was: dancing links' count reported the SAT solver it never ran (then "xcover" as a solver)."""
    data = json.loads(count(tmp_path, "pieces: pentominoes:1\n" + "." * 20 + "\n" + ("." * 20 + "\n") * 2,
                            "--method", "dlx").output)
    assert data["method"] == "dlx" and data["solver"] is None and data["encoding"] is None


def test_jobs_are_capped_by_the_units(tmp_path):
    """Was: --jobs 1000 started 1000 processes for a handful of units (now more than
    8 a core is refused: tests/test_lifecycle.py)."""
    data = json.loads(count(tmp_path, "pieces: L3\n" + "......\n" * 2, "--method", "dlx", "--jobs", "8").output)
    assert data["count"] == 4 and data["exact"]  # 2 x 3n: 2^n
    assert data["jobs"] == data["units"] <= 20


def test_list_auto_picks_dancing_links_for_exact_cover(tmp_path):
    f = tmp_path / "p.txt"
    f.write_text("pieces: pentominoes:1\n" + ("." * 20 + "\n") * 3)
    out = tmp_path / "t.jsonl"
    res = runner.invoke(app, ["list", str(f), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert len(out.read_text().splitlines()) == 8  # the 3x20 rectangle's 8 tilings (2 up to symmetry)
