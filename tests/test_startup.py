"""Start-up: a command imports what it uses.  ``tilesat count`` of a small
board, as a real process, loads no heavy library that only other commands
or engines need (numba, HiGHS, Dask, matplotlib, drawsvg, the studio's
server, the model counters), and the console script imports only the
command's own module.  Speed itself is measured in
``scripts/bench_records.py --startup``, not here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tilesat.cli as cli
from tilesat.model.arrays import unique, unique_rows

INSTANCES = Path(__file__).resolve().parent.parent / "instances"

#: Libraries (and tilesat's packages) a count by the compiled engines never needs.
HEAVY = ("numba", "highspy", "dask", "distributed", "matplotlib", "drawsvg", "starlette", "uvicorn", "pyganak",
         "pyapproxmc", "xcover", "ortools", "rich.progress", "urllib.request", "tilesat.studio", "tilesat.explain")

#: Runs the console script's main with these arguments, then writes the modules loaded to the file named last.
RUN_AND_LIST = """
import json, sys
from tilesat.main import main
out = sys.argv.pop()
sys.argv[0] = "tilesat"
try:
    main()
finally:
    with open(out, "w") as f:
        json.dump(sorted(sys.modules), f)
"""


def run_listing_modules(tmp_path, *args) -> tuple[subprocess.CompletedProcess, set[str]]:
    listing = tmp_path / "modules.json"
    run = subprocess.run([sys.executable, "-c", RUN_AND_LIST, *map(str, args), listing], capture_output=True,
                         timeout=120)
    return run, set(json.loads(listing.read_text()))


def loaded(modules: set[str], name: str) -> bool:
    return name in modules or any(m.startswith(name + ".") for m in modules)


@pytest.mark.parametrize("args, method, count", [
    (["count", INSTANCES / "pentomino-6x10.txt", "--up-to-symmetry", "--json"], "native", 2339),  # classes
    (["count", INSTANCES / "burrtools" / "rotations.xmpuzzle", "--json"], "xcc", 4),
])
def test_count_of_a_small_board_imports_no_heavy_module(tmp_path, args, method, count):
    run, modules = run_listing_modules(tmp_path, *args)
    assert run.returncode in (0, 1), run.stderr  # 1: more than one tiling
    answer = json.loads(run.stdout)
    assert answer["method"] == method
    assert (answer["up_to_symmetry"] if "--up-to-symmetry" in args else answer["count"]) == count
    assert [name for name in HEAVY if loaded(modules, name)] == []
    others = {f"tilesat.cli.{m}" for m in cli.MODULES} - {"tilesat.cli.count", "tilesat.cli.search"}
    assert sorted(others & modules) == []  # count imports search's certificate helpers, no other command


def test_every_command_is_found_in_its_module():
    """main() imports only the named command's module: the table must say where each command is."""
    app = cli.app  # every module loaded
    registered = {c.name: c.callback.__module__.rpartition(".")[2] for c in app.registered_commands}
    assert registered == cli.COMMAND_MODULES
    assert set(cli.COMMAND_MODULES.values()) == set(cli.MODULES)


@pytest.mark.parametrize("args, module", [
    (["count", "board.txt"], "count"),
    (["--max-memory", "4G", "list", "--limit", "3", "b.txt"], "count"),
    (["--max-memory=4G", "check-unique", "b.txt"], "search"),
    (["verify-proof", "--help"], "dimacs"),
    (["--help"], None),  # the group's help lists every command
    ([], None),
    (["--version"], None),
    (["cuont", "b.txt"], None),  # unknown: every command loaded, so that the error can say "did you mean"
])
def test_command_module_from_the_arguments(args, module):
    assert cli.command_module(args) == module


def test_shell_completion_loads_every_command(monkeypatch):
    monkeypatch.setenv("_TILESAT_COMPLETE", "complete_bash")
    assert cli.command_module(["count", "b.txt"]) is None


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 8).flatmap(lambda cols: st.lists(st.lists(st.integers(-3, 3), min_size=cols, max_size=cols),
                                                       max_size=12)))
def test_unique_is_numpys_without_numpy_ma(rows):
    """model.arrays.unique(_rows) stand in for np.unique on the count's path (which imports numpy.ma)."""
    a = np.array(rows, dtype=np.int64).reshape(len(rows), -1 if rows and rows[0] else 0)
    got = unique_rows(a)
    assert got.dtype == a.dtype and np.array_equal(got, np.unique(a, axis=0))
    flat = unique(a)
    assert flat.dtype == a.dtype and np.array_equal(flat, np.unique(a))
