"""Start-up: a command imports what it uses.  ``tilesat count`` of a small
board, as a real process, loads no heavy library that only other commands
or engines need (numba, HiGHS, Dask, matplotlib, drawsvg, the studio's
server, the model counters), and the console script imports only the
command's own module.  Speed itself is measured in
``scripts/bench_records.py --startup``, not here."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tilesat.cli as cli
from tilesat.cli.common import _TERMINAL_VARIABLES as TERMINAL_VARIABLES, _out, print_line
from tilesat.model.arrays import unique, unique_rows

INSTANCES = Path(__file__).resolve().parent.parent / "instances"

#: Libraries (and tilesat's packages) a count by the compiled engines never needs.
HEAVY = ("numba", "highspy", "dask", "distributed", "matplotlib", "drawsvg", "starlette", "uvicorn", "pyganak",
         "pyapproxmc", "xcover", "ortools", "rich.progress", "urllib.request", "tilesat.studio", "tilesat.explain",
         # what a count in one process does without (10-100 ms each): typer 0.29's value adapters (cli.plain_values),
         # plugins' entry points read by importlib.metadata (running.installed), pools, tables, pictures, pack's clauses
         "pydantic", "importlib.metadata", "multiprocessing", "concurrent.futures", "pysat.card",
         "tilesat.showing.pictures", "tilesat.running.cluster",
         # the engines it does not run (the registry names them and writes their help without importing them)
         "tilesat.engines.sat", "tilesat.engines.portfolio", "tilesat.engines.repair_sweep",
         "tilesat.engines.model_count", "tilesat.engines.lexleader", "tilesat.questions.solve",
         "rich")  # its console: a count's one line to a pipe or a file is plain text (cli.common.print_line)

#: Runs the console script's main with these arguments, then writes the modules loaded to the file named last.
RUN_AND_LIST = """
import gc, json, sys
from tilesat.main import main
out = sys.argv.pop()
sys.argv[0] = "tilesat"
try:
    main()
finally:
    with open(out, "w") as f:
        json.dump({"modules": sorted(sys.modules), "collecting": gc.isenabled()}, f)
"""


def run_listing_modules(tmp_path, *args) -> tuple[subprocess.CompletedProcess, set[str]]:
    listing = tmp_path / "modules.json"
    env = {k: v for k, v in os.environ.items() if k not in TERMINAL_VARIABLES}  # (they make rich see a terminal)
    run = subprocess.run([sys.executable, "-c", RUN_AND_LIST, *map(str, args), listing], capture_output=True,
                         timeout=120, env=env)
    seen = json.loads(listing.read_text())
    # the console script imports with the garbage collector off; the command must have turned it on
    assert seen["collecting"], "the command ran without the garbage collector"
    return run, set(seen["modules"])


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
    others = {f"tilesat.cli.{m}" for m in cli.MODULES} - {"tilesat.cli.count"}
    assert sorted(others & modules) == []  # no other command (search's certificate helpers: when there is one)


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


def _typer_parameters():
    """The parameters of every command (and the group's), as typer makes them, by name."""
    import typer.main

    group = typer.main.get_command(cli.app)
    params = {f"<group> {p.name}": p for p in group.params}
    for name, command in group.commands.items():
        params |= {f"{name} {p.name}": p for p in command.params}
    return params


PLAIN = {name: p for name, p in _typer_parameters().items()
         if getattr(p, "type_descriptor", None) is not None and p.nargs == 1 and not p.multiple
         and p.type_descriptor.annotation in (str, int, float, Path)}

#: What a user types: numbers written every way, paths, words, nothing, odd characters.
VALUES = st.one_of(st.from_regex(r"\A[ +-]?[0-9_]{0,4}(\.[0-9]{0,3})?([eE][+-]?[0-9]{1,3})?\s?\Z"),
                   st.text(max_size=6), st.sampled_from(["", "0", "1", "-0", "007", "1_000", "inf", "nan", " 5 ",
                                                         "1e400", ".5", "1.", "٣", "/", "-", "0x10"]))


@pytest.mark.skipif(not PLAIN or not hasattr(next(iter(PLAIN.values())), "get_runtime_param"),
                    reason="typer before 0.29 converts values with click's types, not pydantic")
@settings(max_examples=400, deadline=None)
@given(st.sampled_from(sorted(PLAIN)), VALUES)
def test_values_are_converted_as_typers_pydantic_adapters_do(name, value):
    """cli.plain_values gives what typer's own coercion gives (pydantic's TypeAdapter), or typer's error."""
    from typer._coercion import build_runtime_param
    from tilesat.cli.plain_values import PlainValue

    param = PLAIN[name]
    theirs = build_runtime_param(param.type_descriptor)
    ours = PlainValue(param.type_descriptor.annotation, param.type_descriptor.parameter_info)
    param._runtime_param = ours  # what plain_values.without_pydantic does; put back below
    try:
        outcomes = []
        for runtime in (theirs, ours):
            try:
                got = runtime.coerce(value, param=param, ctx=None)
                outcomes.append(("value", type(got), repr(got)))
            except Exception as e:  # noqa: BLE001 - the same error, the same words
                outcomes.append(("error", type(e), e.format_message() if hasattr(e, "format_message") else str(e)))
    finally:
        param._runtime_param = None
    assert outcomes[0] == outcomes[1]


def test_entry_points_are_importlib_metadatas(tmp_path, monkeypatch):
    """running.installed.entry_points reads what importlib.metadata reads, and imports it only where a package
    names the group: an installed package's, a group nobody declares, one declared on sys.path's last entry
    (in a fresh process: once a library imports the importlib_metadata backport, it takes the stdlib's place)."""
    import importlib.metadata

    from tilesat.running.installed import _may_declare, entry_points

    for group in ("console_scripts", "pytest11", "tilesat.no-such-group"):
        assert entry_points(group) == list(importlib.metadata.entry_points(group=group))

    class Distributions:  # another finder of distributions, such as the backport's: importlib.metadata answers
        def find_distributions(self, context=None):
            return iter(())

    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Distributions()])
    assert _may_declare("tilesat.no-such-group")

    info = tmp_path / "Late_Plugin-0.1.DIST-INFO"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: late-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[tilesat.no-such-group]\nlate = late_plugin:ENGINE\n")
    script = f"""
import importlib.metadata, sys
from tilesat.running.installed import _may_declare, entry_points
group = "tilesat.no-such-group"
assert not _may_declare(group) and entry_points(group) == []
sys.path[:0] = [{str(tmp_path / "not-there")!r}]
sys.path.append({str(tmp_path)!r})
assert _may_declare(group)
assert [p.name for p in entry_points(group)] == [p.name for p in importlib.metadata.entry_points(group=group)] == ["late"]
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


#: Lines a count may print, and lines rich would change: emoji codes, tabs, control characters, other scripts.
LINES = st.one_of(st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=40),
                  st.text(max_size=12),
                  st.sampled_from(["count: 12 tilings, by native (a: b), 0.010 s", "a :smile: b", ":thumbs_up:", "x::y",
                                   "tab\there", "bell\a", "cr\rlf", "  spaced  ", "", "é", "✓ done", "[bold]x[/bold]"]))


@settings(max_examples=300, deadline=None)
@given(LINES)
def test_a_plain_line_is_written_as_richs_console_writes_it(line):
    """print_line writes to a pipe or a file what _out().print(line, markup=False) writes, with or without rich."""
    written = []
    with pytest.MonkeyPatch.context() as mp:
        for name in TERMINAL_VARIABLES:
            mp.delenv(name, raising=False)
        for write in (lambda: _out().print(line, markup=False), lambda: print_line(line)):
            stream = io.StringIO()
            mp.setattr(sys, "stdout", stream)
            write()
            written.append(stream.getvalue())
    assert written[0] == written[1]
