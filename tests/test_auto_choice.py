"""``--method auto`` picks, on every file in instances/ and every counting
example of the docs, a method within 2x of the fastest (issue 32).

The figures are measured, not timed here: ``scripts/bench_auto_methods.py``
runs each case with every method that can take it and writes the tables of
docs/benchmarks/data/auto/.  This test asks the rules of
:mod:`tilesat.engines.auto` what they pick *today* and looks that method's
time up in the table: a rule changed for the worse, or a case nobody
measured, fails here."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from repo_scripts import import_script

from tilesat import load_instance
from tilesat.engines.auto import choose
from tilesat.engines.base import Job

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "docs" / "benchmarks" / "data" / "auto"
TABLES = {"find": DATA / "01-find.json", "count": DATA / "02-count.json"}
#: auto may take this many times the fastest method's wall clock.
SLACK = 2.0


def rows(question: str) -> list[tuple[list[str], dict[str, float | str]]]:
    """(the case's arguments, {method: seconds or ">N" / "—"}) for each row of a table."""
    table = json.loads(TABLES[question].read_text())
    methods = table["columns"][1:-2]  # case, methods..., fastest, auto
    out = []
    for row in table["rows"]:
        args = shlex.split(row[0])[1:]  # the command's name, then the case
        out.append((args, dict(zip(methods, row[1:-2]))))
    return out


def picked(question: str, args: list[str]) -> str:
    flags = {a: args[i + 1] for i, a in enumerate(args) if a in ("--pieces", "--wrap", "--limit")}
    instance = load_instance(ROOT / args[0], pieces=flags.get("--pieces"), wrap=flags.get("--wrap"))
    limit = int(flags["--limit"]) if "--limit" in flags else None
    engine, _ = choose(Job(question, instance, limit=limit, up_to_symmetry="--up-to-symmetry" in args))
    return engine.name


CASES = [pytest.param(question, args, times, id=f"{question} {' '.join(args)}")
         for question in TABLES if TABLES[question].exists() for args, times in rows(question)]


@pytest.mark.parametrize("question, args, times", CASES)
def test_auto_is_within_twice_the_fastest(question, args, times):
    finished = {m: t for m, t in times.items() if isinstance(t, (int, float))}
    assert finished, f"no method finished: {times}"
    fastest = min(finished.values())
    method = picked(question, args)
    assert method in times, f"auto picks {method}, which the table did not measure: run the script again"
    assert isinstance(times[method], (int, float)), f"auto picks {method}, which did not finish ({times[method]}): {times}"
    assert times[method] <= SLACK * fastest, f"auto picks {method} ({times[method]} s); {min(finished, key=finished.get)} took {fastest} s"


def test_every_instance_file_and_counting_example_has_its_row():
    script = import_script("bench_auto_methods")
    measured = {(question, tuple(args)) for question in TABLES for args, _ in rows(question)}
    wanted = {(question, tuple(args)) for question, args in script.cases()}
    assert not wanted - measured, f"not measured: {sorted(wanted - measured)}"
    files = {args[0] for question, args in wanted}
    assert files >= set(script.instance_files())


def test_measuring_some_rows_again_leaves_the_other_table_as_it_was(tmp_path, monkeypatch):
    script = import_script("bench_auto_methods")
    earlier = (DATA / "02-count.json").read_text()
    count_table = tmp_path / "02-count.json"
    count_table.write_text(earlier)
    chosen = next(label for question, case in script.cases() if question == "find"
                  for label in [script.label(question, case)])
    monkeypatch.setattr(script, "measure", lambda question, case, methods, rounds, cap: {m: 0.5 for m in methods})
    script.main(["--json-dir", str(tmp_path), "--only", chosen, "--rounds", "1"])
    assert count_table.read_text() == earlier
    find_rows = json.loads((tmp_path / "01-find.json").read_text())["rows"]
    assert chosen in [row[0] for row in find_rows] and all(chosen in row[0] for row in find_rows)
