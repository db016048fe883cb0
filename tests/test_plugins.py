"""Plugins: encodings and solvers from the user's own code (module path, file path,
entry point) run in every command that takes --encoding/--solver; bad ones are one line."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tilesat import load_instance, solve
from tilesat.cli import app
from tilesat.sat.encodings import check_encoding, encoding_names, get_encoding
from tilesat.making.fuzz import encoding_alone
from tilesat.sat.solvers import check_solver_name, make_solver, solver_names

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent
INSTANCES = ROOT / "instances"
EXAMPLE = ROOT / "examples" / "my_encoding.py"
HEULE = f"{EXAMPLE}:exactly_one"
BOARD = INSTANCES / "lpanel-6x6.txt"  # L4, unique

SOLVER_PLUGIN = """
from pysat.solvers import Minisat22

class MySolver:
    def __init__(self):
        self.s = Minisat22()
    def add_clause(self, clause):
        self.s.add_clause(clause)
    def solve(self, assumptions=()):
        return self.s.solve(assumptions=assumptions)
    def model(self):
        return self.s.get_model()
    def close(self):
        self.s.delete()

class Liar:
    def add_clause(self, clause):
        pass
    def solve(self, assumptions=()):
        return True
    def model(self):
        return [-1, -2, -3]

class Incomplete:
    def solve(self, assumptions=()):
        return False

def bad_blocks(lits, top):
    return [lits.ravel()], top

def beyond_top(lits, top):
    return [lits, lits + 1000], top

def raises(lits, top):
    raise RuntimeError("my bug")

this = "not callable"
"""


def invoke(*args):
    result = runner.invoke(app, [str(a) for a in args])
    assert "Traceback" not in result.output, result.output
    return result


@pytest.fixture
def plugin_file(tmp_path):
    path = tmp_path / "my_plugins.py"
    path.write_text(SOLVER_PLUGIN)
    return path


def test_the_example_encoding_is_correct_and_as_small_as_it_says():
    check_encoding(HEULE)
    for n in range(1, 30):
        assert encoding_alone(HEULE, n) is None, n
    import numpy as np

    for n in range(3, 40):
        blocks, top = get_encoding(HEULE)(np.arange(1, n + 1, dtype=np.int64)[None, :], n)
        clauses = sum(b.shape[0] for b in blocks)
        assert (clauses, top - n) == (3 * n - 6 + 1, (n - 3) // 2), n  # plus the at-least-one clause


def test_the_example_runs_in_solve_compare_and_fuzz():
    res = invoke("solve", BOARD, "--encoding", HEULE, "--json")
    assert res.exit_code == 0 and json.loads(res.output)["verdict"] == "solved"
    res = invoke("compare", BOARD, "--encodings", f"pairwise,{HEULE}", "--solvers", "cadical195")
    assert res.exit_code == 0 and "all 2 finished runs agree" in res.output, res.output
    res = invoke("fuzz", "--encodings", HEULE, "--solvers", "cadical195", "--examples", 20, "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.output.strip().splitlines()[-1])["agreed"]


@pytest.mark.skipif(shutil.which("tilesat") is None, reason="the tilesat script is not installed")
def test_a_module_path_is_found_from_the_current_directory(tmp_path):
    # the console script's sys.path starts at its own directory, not the user's: tilesat looks there too
    shutil.copy(EXAMPLE, tmp_path / "heule_plugin.py")
    proc = subprocess.run(["tilesat", "check-unique", str(BOARD), "--encoding", "heule_plugin:exactly_one", "--json"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["verdict"] == "unique" and data["stats"]["encoding"] == "heule_plugin:exactly_one"


@pytest.mark.parametrize("args", [
    ["check-unique", BOARD], ["count", BOARD, "--method", "blocking"], ["list", BOARD, "--method", "blocking"],
    ["pack", BOARD],
])
def test_every_command_takes_a_plugin_encoding(args):
    plain = invoke(*args, "--json")
    res = invoke(*args, "--encoding", HEULE, "--json")
    assert res.exit_code == plain.exit_code, res.output
    assert res.output.replace(HEULE, "X").count("\n") == plain.output.count("\n")
    if args[0] != "list":
        a, b = json.loads(res.output), json.loads(plain.output)
        for key in ("verdict", "count", "best"):
            assert a.get(key) == b.get(key), key


def test_export_with_a_plugin_encoding(tmp_path):
    res = invoke("export", BOARD, "-o", tmp_path / "f.cnf", "--encoding", HEULE)
    assert res.exit_code == 0, res.output
    text = (tmp_path / "f.cnf").read_text()
    assert f"c encoding {HEULE}" in text and "p cnf" in text


def test_a_plugin_solver_runs_and_its_models_are_checked(plugin_file):
    name = f"{plugin_file}:MySolver"
    assert check_solver_name(name) == name
    instance = load_instance(BOARD)
    assert solve(instance, method="sat", solver=name).verdict == "solved"
    res = invoke("check-unique", BOARD, "--solver", name, "--json")
    assert res.exit_code == 0 and json.loads(res.output)["verdict"] == "unique"
    res = invoke("fuzz", "--encodings", "pairwise", "--solvers", name, "--examples", 15)
    assert res.exit_code == 0, res.output
    res = invoke("solve", BOARD, "--solver", f"{plugin_file}:Liar")
    assert res.exit_code == 2 and "the solver's answer is wrong" in res.output
    with make_solver(name) as solver:  # the interface tilesat's own code uses
        solver.add_clause([1, 2])
        solver.add_clause([-1])
        assert solver.solve() and 2 in solver.model()


def test_fuzz_blames_a_lying_solver(plugin_file, tmp_path):
    res = invoke("fuzz", "--encodings", "pairwise", "--solvers", f"{plugin_file}:Liar", "--examples", 50,
                 "--out", tmp_path / "o")
    assert res.exit_code == 1 and "the solver's answer is wrong" in (tmp_path / "o" / "report.txt").read_text()


@pytest.mark.parametrize("spec, words", [
    ("{f}:nope", "has no 'nope'"),
    ("{f}:this", "is not callable"),
    ("/no/such/file.py:f", "no such file: /no/such/file.py"),
    ("no_such_module_xyz:f", "no module named 'no_such_module_xyz'"),
    ("{bad}:f", "loading"),
    (":f", "a plugin is MODULE:NAME or FILE.py:NAME"),
])
def test_bad_plugin_specs_are_one_line_in_every_command(plugin_file, tmp_path, spec, words):
    bad = tmp_path / "syntax_error.py"
    bad.write_text("def f(:\n")
    spec = spec.format(f=plugin_file, bad=bad)
    commands = [["solve", BOARD, "--encoding"], ["check-unique", BOARD, "--encoding"], ["count", BOARD, "--encoding"],
                ["list", BOARD, "--encoding"], ["pack", BOARD, "--encoding"], ["compare", BOARD, "--encodings"],
                ["export", BOARD, "-o", tmp_path / "x.cnf", "--encoding"], ["fuzz", "--out", tmp_path / "fz", "--encodings"],
                ["solve", BOARD, "--solver"], ["count", BOARD, "--solver"], ["pack", BOARD, "--solver"],
                ["compare", BOARD, "--solvers"], ["fuzz", "--out", tmp_path / "fz", "--solvers"]]
    for command in commands:
        res = invoke(*command, spec)
        lines = res.output.strip().splitlines()
        assert res.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: "), (command, res.output)
        assert words in lines[0], (command, lines[0])
    assert not (tmp_path / "x.cnf").exists() and not (tmp_path / "fz").exists()


@pytest.mark.parametrize("function, words", [
    ("bad_blocks", "each block is 2-D"), ("beyond_top", "beyond its top"), ("raises", "failed: RuntimeError: my bug"),
])
def test_a_plugin_encoding_that_returns_nonsense_is_one_line(plugin_file, function, words):
    res = invoke("solve", BOARD, "--encoding", f"{plugin_file}:{function}")
    assert res.exit_code == 2 and words in res.output and res.output.startswith("error: ")


def test_incomplete_solver_is_one_line(plugin_file):
    res = invoke("solve", BOARD, "--solver", f"{plugin_file}:Incomplete")
    assert res.exit_code == 2 and "its objects have no add_clause, model" in res.output


def test_entry_points_of_installed_packages(tmp_path, monkeypatch):
    # an "installed package": a dist-info directory with entry points, on sys.path
    shutil.copy(EXAMPLE, tmp_path / "ep_heule_mod.py")
    (tmp_path / "ep_plugins_mod.py").write_text(SOLVER_PLUGIN)
    info = tmp_path / "tilesat_ep_demo-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tilesat-ep-demo\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[tilesat.encodings]\nheule_ep = ep_heule_mod:exactly_one\n\n"
                                           "[tilesat.solvers]\nminisat_ep = ep_plugins_mod:MySolver\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "heule_ep" in encoding_names() and "minisat_ep" in solver_names()
    assert check_encoding("heule_ep") == "heule_ep" and check_solver_name("minisat_ep") == "minisat_ep"
    res = invoke("check-unique", BOARD, "--encoding", "heule_ep", "--solver", "minisat_ep", "--json")
    assert res.exit_code == 0 and json.loads(res.output)["verdict"] == "unique", res.output
    res = invoke("compare", BOARD, "--encodings", "all", "--solvers", "cadical195", "--json", tmp_path / "c.json")
    assert res.exit_code == 0 and "heule_ep" in res.output  # all: the built-ins and the installed ones


def test_unknown_names_say_how_to_name_a_plugin():
    res = invoke("solve", BOARD, "--encoding", "nosuch")
    assert res.exit_code == 2 and "MODULE:FUNCTION or FILE.py:FUNCTION" in res.output
    res = invoke("solve", BOARD, "--solver", "nosuch")
    assert res.exit_code == 2 and "MODULE:CLASS or FILE.py:CLASS" in res.output


MY_SOLVER = f"{ROOT / 'examples' / 'my_solver.py'}:MySolver"


def test_the_example_solver_runs_and_honours_the_timeout(tmp_path):
    res = invoke("check-unique", INSTANCES / "lpanel-8x8.txt", "--solver", MY_SOLVER, "--json")
    assert res.exit_code == 0 and json.loads(res.output)["verdict"] == "unique", res.output
    res = invoke("fuzz", "--encodings", "pairwise,commander", "--solvers", MY_SOLVER, "--examples", 15, "--json")
    assert res.exit_code == 0 and json.loads(res.output.strip().splitlines()[-1])["agreed"], res.output
    # the mutilated 16x16 board by dominoes (no certificate asked for): far beyond MiniSat's reach in 1.5 s
    import time

    from test_control import mutilated
    from tilesat import parse_instance
    from tilesat.running.control import TimedOut
    from tilesat.engines.sat import TilingSearch

    search = TilingSearch(parse_instance(mutilated(16)), solver=MY_SOLVER, certificates=False, timeout=1.5)
    t0 = time.perf_counter()
    with pytest.raises(TimedOut), search:
        search.next()
    assert time.perf_counter() - t0 < 1.5 + 1.0  # a slice of 20,000 conflicts past it at most


def test_a_plugin_that_stops_at_the_deadline_is_not_a_failure(tmp_path):
    """Was: TimedOut raised inside a plugin's solve became 'error: solver ... failed in solve: TimedOut'
    (the LP certificate's budget is such a deadline: solve on a board it refutes failed)."""
    (tmp_path / "mut6.txt").write_text(__import__("test_control").mutilated(6))
    res = invoke("solve", tmp_path / "mut6.txt", "--solver", MY_SOLVER, "--json")
    assert res.exit_code == 3 and json.loads(res.output)["verdict"] == "none", res.output
