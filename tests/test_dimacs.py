"""DIMACS export and decode, external solvers, DRAT proofs."""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tilesat import check_unique, compile_formula, generate_placements, load_instance
from tilesat.cli import app
from tilesat.sat.dimacs import read_answer, read_dimacs, write_dimacs
from tilesat.errors import TilesatError

INSTANCES = Path(__file__).resolve().parent.parent / "instances"
UNIQUE = INSTANCES / "lpanel-8x8.txt"
MULTIPLE = INSTANCES / "lpanel-4x8-multiple.txt"
NONE = INSTANCES / "lpanel-6x6-none.txt"
runner = CliRunner()
needs = {name: pytest.mark.skipif(shutil.which(name) is None, reason=f"Debian's {name} is not installed")
         for name in ("cadical", "picosat", "minisat")}


def run(*args):
    result = runner.invoke(app, [str(a) for a in args])
    assert "Traceback" not in result.output, result.output
    return result


@pytest.mark.parametrize("suffix", [".cnf", ".cnf.gz", ".cnf.xz"])
def test_export_round_trip(tmp_path, suffix):
    out = tmp_path / f"f{suffix}"
    res = run("export", UNIQUE, "-o", out, "--encoding", "ladder")
    assert res.exit_code == 0, res.output
    nvars, clauses = read_dimacs(out)
    formula = compile_formula(generate_placements(load_instance(UNIQUE)), "ladder")
    assert nvars == formula.nvars and clauses == list(formula.clauses())
    if suffix == ".cnf":
        text = out.read_text()
        P = formula.nplacements
        assert f"c p show {' '.join(map(str, range(1, P + 1)))} 0" in text
        assert text.count("\nc placement ") == P and "c encoding ladder card seqcounter" in text
        assert f"p cnf {formula.nvars} {formula.nclauses}\n" in text



@pytest.mark.parametrize("text, message", [
    ("p cnf 2 1\n1 2\n", "the last clause is not ended by 0"),
    ("p cnf 2 2\n1 2 0\n", "1 clauses, but the header declares 2"),
    ("1 2 0\n", "line 1: a clause before the 'p cnf' line"),
    ("p cnf 2 1\n1 x 0\n", "line 2: 'x' is not a literal"),
    ("p cnf 2 1\n1 +2 0\n", "'+2' is not a literal"),
    ("p cnf 2 1\n1 " + "9" * 5000 + " 0\n", "is not a literal"),
    ("p cnf 2 1\n1 3 0\n", "literal 3 is beyond the 2 variables"),
    ("p cnf 2 1\np cnf 2 1\n1 0\n", "line 2: a 'p' line after the header"),
    ("p dnf 2 1\n1 0\n", "expected 'p cnf VARIABLES CLAUSES'"),
    ("c nothing\n", "no 'p cnf' line"),
    ("p cnf 2 1\n1 -2 0\nc \xe9\n", "not ASCII"),
])
def test_read_dimacs_is_strict(tmp_path, text, message):
    path = tmp_path / "x.cnf"
    path.write_bytes(text.encode("latin-1"))
    with pytest.raises(TilesatError, match=re.escape(message)):
        read_dimacs(path)


def test_read_dimacs_of_a_broken_archive_is_one_error(tmp_path):
    for name in ("x.cnf.gz", "x.cnf.xz"):
        (tmp_path / name).write_bytes(b"not compressed at all")
        with pytest.raises(TilesatError, match="cannot read"):
            read_dimacs(tmp_path / name)


def test_header_counts_the_variables_of_extra_clauses(tmp_path):
    # pack's "better than the optimum" clauses bring auxiliary variables
    # beyond the formula's: the 'p cnf' line must declare them
    from tilesat.sat.objectives import better_than, compile_packing

    path = tmp_path / "t.txt"
    path.write_text("pieces: T5\n" + "........\n" * 4)
    formula, goal = compile_packing(load_instance(path), "pieces", "pairwise")
    extra = better_than(formula, goal, 4)
    top = max(abs(x) for c in extra for x in c)
    assert top > formula.nvars
    with open(tmp_path / "f.cnf", "w") as f:
        write_dimacs(formula, f, extra_clauses=extra)
    nvars, clauses = read_dimacs(tmp_path / "f.cnf")
    assert nvars == top and clauses == list(formula.clauses()) + extra

def test_export_map_and_no_overwrite(tmp_path):
    out, mp = tmp_path / "f.cnf", tmp_path / "map.json"
    assert run("export", UNIQUE, "-o", out, "--map", mp).exit_code == 0
    data = json.loads(mp.read_text())
    assert data["placements"][0]["var"] == 1 and "c placement " not in out.read_text()
    res = run("export", UNIQUE, "-o", out)
    assert res.exit_code == 2 and "exists; pass --force" in res.output
    assert run("export", UNIQUE, "-o", out, "--force").exit_code == 0


@needs["cadical"]
def test_export_solve_with_debian_cadical_decode(tmp_path):
    out, answer = tmp_path / "f.cnf", tmp_path / "answer.txt"
    run("export", MULTIPLE, "-o", out)
    proc = subprocess.run(["cadical", "-q", str(out)], capture_output=True, text=True)
    assert proc.returncode == 10
    answer.write_text(proc.stdout)
    res = run("decode", MULTIPLE, answer, "--json")
    assert res.exit_code == 0, res.output
    tiling = json.loads(res.output)["tilings"][0]
    assert len(tiling) == 8
    # block that tiling: cadical finds another; on the unique board it finds none
    sol = tmp_path / "sol.json"
    sol.write_text(res.output)
    run("export", MULTIPLE, "-o", tmp_path / "b.cnf", "--block", sol)
    assert subprocess.run(["cadical", "-q", str(tmp_path / "b.cnf")], capture_output=True).returncode == 10
    sol.write_text(run("solve", UNIQUE, "--json").output)
    run("export", UNIQUE, "-o", tmp_path / "u.cnf", "--block", sol)
    assert subprocess.run(["cadical", "-q", str(tmp_path / "u.cnf")], capture_output=True).returncode == 20


def test_decode_rejects_bad_models(tmp_path):
    formula = compile_formula(generate_placements(load_instance(UNIQUE)))  # the default, as decode uses
    from pysat.solvers import Solver

    with Solver(name="glucose4", bootstrap_with=list(formula.clauses())) as s:
        assert s.solve()
        model = s.get_model()
    good = tmp_path / "good.txt"
    good.write_text("s SATISFIABLE\nv " + " ".join(map(str, model)) + " 0\n")
    assert run("decode", UNIQUE, good).exit_code == 0
    bad = tmp_path / "bad.txt"
    bad.write_text(" ".join(map(str, [-model[0]] + model[1:])) + " 0\n")
    res = run("decode", UNIQUE, bad)
    assert res.exit_code == 2 and "does not satisfy the formula" in res.output
    bad.write_text(" ".join(map(str, model + [formula.nvars + 5])) + " 0\n")
    res = run("decode", UNIQUE, bad)
    assert res.exit_code == 2 and f"names variable {formula.nvars + 5}" in res.output
    bad.write_text("hello world\n")
    assert run("decode", UNIQUE, bad).exit_code == 2
    bad.write_text("s UNSATISFIABLE\n")
    res = run("decode", UNIQUE, bad)
    assert res.exit_code == 3 and res.output.startswith("none")
    assert read_answer("SAT\n1 -2 0\n").model == [1, -2]


@pytest.mark.parametrize("solver", [
    pytest.param("ext:cadical -q", marks=needs["cadical"]),
    pytest.param("ext:picosat", marks=needs["picosat"]),
    pytest.param("ext:minisat {cnf} {out}", marks=needs["minisat"]),
])
def test_external_solvers_agree(solver):
    for path, verdict in ((UNIQUE, "unique"), (MULTIPLE, "multiple"), (NONE, "none")):
        inst = load_instance(path)
        assert check_unique(inst, solver=solver).verdict == verdict == check_unique(inst).verdict
    res = run("check-unique", UNIQUE, "--solver", solver, "--json")
    assert res.exit_code == 0 and json.loads(res.output)["stats"]["solver"] == solver


def test_external_solver_failures_are_clear(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    cases = [
        (["--solver", "ext:false"], "gave no answer (exit code 1)"),
        (["--solver", "ext:echo garbage"], "it printed last: 'garbage"),
        (["--solver", "ext:no-such-solver-here"], "command 'no-such-solver-here' not found"),
    ]
    for args, message in cases:
        res = run("solve", UNIQUE, *args)
        assert res.exit_code == 2 and message in res.output, res.output
        assert len(res.output.strip().splitlines()) == 1
    # a solver that runs past --timeout is stopped: verdict unknown, exit 124 (as timeout(1))
    res = run("solve", UNIQUE, "--solver", "ext:sh -c 'sleep 5'", "--timeout", "0.5")
    assert res.exit_code == 124 and res.output.startswith("unknown: the time limit of 0.5 s passed"), res.output
    assert os.listdir(tmp_path) == []  # temporary files removed


def test_proof_of_unique_and_none_verify(tmp_path):
    for path, verdict, code in ((UNIQUE, "unique", 0), (NONE, "none", 3)):
        d = tmp_path / verdict
        res = run("check-unique", path, "--proof", d)
        assert res.exit_code == code and "proof written to" in res.output
        res = run("verify-proof", d)
        assert res.exit_code == 0 and res.output.startswith("proof verified")
    res = run("solve", NONE, "--proof", tmp_path / "solve-none")
    assert res.exit_code == 3 and run("verify-proof", tmp_path / "solve-none").exit_code == 0
    # an existing proof is not overwritten
    res = run("check-unique", UNIQUE, "--proof", tmp_path / "unique")
    assert res.exit_code == 2 and "exists" in res.output


def test_tampered_proofs_are_rejected(tmp_path):
    # the 6x6 board's refutation needs thousands of steps: unit propagation
    # alone does not refute it, so a cut proof cannot pass
    d = tmp_path / "p"
    run("check-unique", NONE, "--no-certificate", "--proof", d)  # the DRAT route, not a certificate
    proof = (d / "proof.drat").read_text().splitlines()
    for cut in (proof[len(proof) // 2:], proof[: len(proof) // 2], ["0"]):
        (d / "proof.drat").write_text("\n".join(cut) + "\n")
        res = run("verify-proof", d)
        assert res.exit_code == 1 and "proof REJECTED" in res.output
    d2 = tmp_path / "q"
    run("check-unique", UNIQUE, "--proof", d2)
    lines = (d2 / "formula.cnf").read_text().splitlines()
    last = next(i for i in range(len(lines) - 1, 0, -1) if not lines[i].startswith("c"))
    (d2 / "formula.cnf").write_text("\n".join(lines[:last] + lines[last + 1:]) + "\n")  # drop the blocking clause
    res = run("verify-proof", d2)
    assert res.exit_code == 1 and "formula.cnf: 1698 clauses, but the header declares 1699" in res.output
    text = (d2 / "formula.cnf").read_text().replace("p cnf 97 1699", "p cnf 97 1698")
    (d2 / "formula.cnf").write_text(text)
    res = run("verify-proof", d2)
    assert res.exit_code == 1 and "formula.cnf is not the CNF tilesat compiles" in res.output
    other = tmp_path / "other.txt"
    lines = UNIQUE.read_text().splitlines()
    row = next(i for i, line in enumerate(lines) if set(line) <= {".", "#"} and "." in line)
    lines[row] = lines[row].replace(".", "#", 1)  # block one open cell: another instance
    other.write_text("\n".join(lines) + "\n")
    res = run("verify-proof", d2, "--instance", other)
    assert res.exit_code == 1 and "not the instance" in res.output


def _answer(cnf: Path, out: Path) -> list[int] | None:
    """Solve an exported CNF with PySAT; write the answer as a solver would."""
    from pysat.solvers import Solver

    _, clauses = read_dimacs(cnf)
    with Solver(name="glucose4", bootstrap_with=clauses) as s:
        model = s.get_model() if s.solve() else None
    out.write_text("s UNSATISFIABLE\n" if model is None else "s SATISFIABLE\nv " + " ".join(map(str, model)) + " 0\n")
    return model


def test_decode_block_says_no_other_tiling_or_another(tmp_path):
    # the answer to an 'export --block' CNF is about the blocked tiling:
    # UNSAT means it is the only one, not that there is none
    sol, cnf, answer = tmp_path / "sol.json", tmp_path / "b.cnf", tmp_path / "answer.txt"
    sol.write_text(run("solve", UNIQUE, "--json").output)
    assert run("export", UNIQUE, "-o", cnf, "--block", sol).exit_code == 0
    assert _answer(cnf, answer) is None
    res = run("decode", UNIQUE, answer, "--block", sol)
    assert res.exit_code == 0, res.output
    assert res.output.startswith("unique: no other tiling") and "no tiling exists" not in res.output
    data = json.loads(run("decode", UNIQUE, answer, "--block", sol, "--json").output)
    assert data["verdict"] == "unique" and data["tilings"] == json.loads(sol.read_text())["tilings"]
    res = run("decode", UNIQUE, answer)  # without --block the same answer means: no tiling
    assert res.exit_code == 3 and res.output.startswith("none: no tiling exists")

    sol.write_text(run("solve", MULTIPLE, "--json").output)
    assert run("export", MULTIPLE, "-o", cnf, "--block", sol, "--force").exit_code == 0
    model = _answer(cnf, answer)
    assert model is not None
    res = run("decode", MULTIPLE, answer, "--block", sol)
    assert res.exit_code == 1 and res.output.startswith("multiple: another tiling"), res.output
    data = json.loads(run("decode", MULTIPLE, answer, "--block", sol, "--json").output)
    first, other = data["tilings"]
    assert data["verdict"] == "multiple" and first == json.loads(sol.read_text())["tilings"][0] and other != first

    # the blocked tiling's own model breaks the blocking clause
    blocked_model = [v if v in _placement_vars(MULTIPLE, first) else -v for v in range(1, max(map(abs, model)) + 1)]
    formula = compile_formula(generate_placements(load_instance(MULTIPLE)))
    from pysat.solvers import Solver
    with Solver(name="glucose4", bootstrap_with=list(formula.clauses())) as s:
        assert s.solve(assumptions=[v for v in blocked_model if abs(v) <= formula.nplacements])
        full = s.get_model()
    answer.write_text("v " + " ".join(map(str, full)) + " 0\n")
    assert run("decode", MULTIPLE, answer).exit_code == 0
    res = run("decode", MULTIPLE, answer, "--block", sol)
    assert res.exit_code == 2 and "does not satisfy the formula" in res.output

    # a blocked 'tiling' that is not one cannot be 'the only tiling'
    sol.write_text(json.dumps(first[1:]))
    answer.write_text("s UNSATISFIABLE\n")
    res = run("decode", MULTIPLE, answer, "--block", sol)
    assert res.exit_code == 2 and "the blocked tiling is not a tiling" in res.output


def _placement_vars(path: Path, tiling: list[dict]) -> set[int]:
    placements = generate_placements(load_instance(path))
    wanted = {(t["piece"], tuple(sorted(tuple(c) for c in t["cells"]))) for t in tiling}
    return {i + 1 for i in range(len(placements))
            if (placements.piece_of(i).name, tuple(sorted(tuple(c) for c in placements.coords_of(i)))) in wanted}
