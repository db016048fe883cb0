"""The ``native`` encoding: at-most-one constraints the solver takes natively
(minicard, gluecard3/4), their CNF expansion everywhere else, and one-line
refusals where only clauses will do."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import event, example, given, settings
from hypothesis import strategies as st
from pysat.solvers import Solver

from tilesat import check_unique, compile_formula, generate_placements, iter_tilings, load_instance, solve
from tilesat.questions.count import count_tilings
from tilesat.model.instance import parse_instance
from tilesat.sat.dimacs import check_model, read_dimacs, write_dimacs
from tilesat.sat.encodings import choose_encoding
from tilesat.sat.formula import NATIVE_SOLVERS, NeedsCnf
from tilesat.sat.solvers import PysatSolver
from tilesat.questions.pack import pack

from test_property import CAP, as_key, instances, oracle, oracle_checker

INSTANCES = Path(__file__).resolve().parent.parent / "instances"
UNIQUE = INSTANCES / "lpanel-8x8.txt"
MULTIPLE = INSTANCES / "lpanel-4x8-multiple.txt"
COUNTED = INSTANCES / "lpanel-4x8-multiple.txt"  # 182 tilings


# --- the formula ---------------------------------------------------------------------


def test_native_formula_is_one_constraint_and_one_clause_per_cell():
    placements = generate_placements(load_instance(UNIQUE))
    f = compile_formula(placements, "native")
    board = placements.instance.board
    degree = placements.coverage()[board.open_cells]
    assert f.native and f.nvars == len(placements)  # no auxiliaries
    assert sum(b.shape[0] for b in f.blocks) == board.area  # at least one, per cell
    assert f.nconstraints == int((degree > 1).sum())  # at most one, per cell with a choice
    assert all(k == 1 for _, k in f.atmost)
    with pytest.raises(NeedsCnf):
        list(f.clauses())
    with pytest.raises(NeedsCnf):
        f.add_to(lambda clause: None)


def test_cnf_expansion_is_the_pairwise_formula():
    placements = generate_placements(load_instance(MULTIPLE))
    expanded = compile_formula(placements, "native").cnf()
    pairwise = compile_formula(placements, "pairwise")
    assert not expanded.native and expanded.nvars == pairwise.nvars
    assert sorted(map(sorted, expanded.clauses())) == sorted(map(sorted, pairwise.clauses()))


@pytest.mark.parametrize("lo,hi", [(1, 1), (0, 2), (2, 3), (0, 0), (3, 10**9)])
def test_piece_counts_natively_and_expanded(lo, hi):
    """Count rules as native at-most constraints: the same tilings natively
    (minicard) and expanded (cadical), as the oracle says."""
    from tilesat import Board, Instance, PieceRule, builtin_piece
    from tilesat.model.instance import INF

    rules = (PieceRule(builtin_piece("I2"), "free", lo, INF if hi == 10**9 else hi),
             PieceRule(builtin_piece("L3"), "free", 0, INF))
    inst = Instance(Board.rectangle(3, 4), rules)
    truth = oracle(inst, cap=10_000)
    for solver in ("minicard", "cadical195"):
        found = {as_key(t) for t in iter_tilings(inst, encoding="native", solver=solver)}
        assert found == truth, (solver, lo, hi)


# --- solvers ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", NATIVE_SOLVERS)
def test_native_solvers_get_constraints_not_clauses(name):
    f = compile_formula(generate_placements(load_instance(UNIQUE)), "native")
    with PysatSolver(name) as s:
        s.add_formula(f)
        assert s.solve() and s.stats()["native"] == "native at-most constraints"
        check_model(f, list(s.model()))  # against the expansion: the same models


def test_other_solvers_get_the_expansion_and_say_so():
    f = compile_formula(generate_placements(load_instance(UNIQUE)), "native")
    with PysatSolver("cadical195") as s:
        s.add_formula(f)
        assert s.solve() and s.stats()["native"].startswith("expanded to CNF")
        check_model(f, list(s.model()))


def test_native_constraint_is_really_given_natively():
    """A native solver given only the constraints (no at-least-one) accepts
    every at-most-one assignment, and refuses two true literals in a row:
    the at-most part is enforced by the solver, not by clauses."""
    f = compile_formula(generate_placements(load_instance(UNIQUE)), "native")
    rows = f.atmost[0][0]
    with Solver(name="minicard") as s:
        f.add_to(lambda clause: None, add_atmost=s.add_atmost)
        assert not s.solve(assumptions=[int(rows[0, 0]), int(rows[0, 1])])
        assert s.solve(assumptions=[int(rows[0, 0])])


def test_auto_never_chooses_native():
    assert {choose_encoding(x) for x in np.linspace(0, 100, 401)} == {"pairwise", "commander", "ladder"}


# --- random boards against the oracle ----------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(instances(), st.sampled_from(["minicard", "gluecard3", "gluecard4"]))
def test_native_agrees_with_the_oracle(instance, solver):
    """solve, check-unique and counting by blocking clauses, natively."""
    truth = oracle(instance)
    event(f"tilings: {min(len(truth), 2) if len(truth) <= CAP else 'many'}")
    accepts = oracle_checker(instance)
    found = [as_key(t) for t in iter_tilings(instance, limit=CAP + 1, encoding="native", solver=solver)]
    assert len(found) == len(set(found))
    if len(truth) <= CAP:
        assert set(found) == truth
    else:
        assert len(found) == CAP + 1 and all(map(accepts, found))
    one = solve(instance, encoding="native", solver=solver)
    assert one.verdict == ("none" if not truth else "solved")
    assert all(accepts(as_key(t)) for t in one.tilings)
    unique = check_unique(instance, encoding="native", solver=solver)
    assert unique.verdict == {0: "none", 1: "unique"}.get(len(truth), "multiple")
    assert all(accepts(as_key(t)) for t in unique.tilings)
    if len(truth) <= CAP:  # counting by blocking clauses, in one process, no LP shortcut
        counted = count_tilings(instance, "blocking", encoding="native", solver=solver, certificates=False)
        assert counted.exact and counted.count == len(truth)


# --- consumers: expansion or a one-line refusal ------------------------------------------


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "tilesat", *map(str, args)], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


def test_dimacs_export_expands_and_says_so(tmp_path):
    out = tmp_path / "f.cnf"
    res = cli("export", MULTIPLE, "-o", out, "--encoding", "native")
    assert res.returncode == 0, res.stderr
    assert "expanded to CNF" in res.stderr and "c native at-most constraints expanded to CNF" in out.read_text()
    nvars, clauses = read_dimacs(out)
    expanded = compile_formula(generate_placements(load_instance(MULTIPLE)), "native").cnf()
    assert nvars == expanded.nvars and clauses == list(expanded.clauses())
    # the exported CNF has the instance's 182 tilings as its models
    with Solver(name="cadical195", bootstrap_with=clauses) as s:
        assert sum(1 for _ in s.enum_models()) == 182


def test_decode_of_an_exported_native_cnf(tmp_path):
    out, answer = tmp_path / "f.cnf", tmp_path / "answer.txt"
    assert cli("export", UNIQUE, "-o", out, "--encoding", "native").returncode == 0
    _, clauses = read_dimacs(out)
    with Solver(name="minisat22", bootstrap_with=clauses) as s:
        assert s.solve()
        answer.write_text("s SATISFIABLE\nv " + " ".join(map(str, s.get_model())) + " 0\n")
    res = cli("decode", UNIQUE, answer, "--encoding", "native", "--json")
    assert res.returncode == 0, res.stderr
    import json
    assert json.loads(res.stdout)["verdict"] == "solved"


def test_write_dimacs_of_a_native_formula_is_the_expansion():
    import io

    f = compile_formula(generate_placements(load_instance(UNIQUE)), "native")
    native, plain = io.StringIO(), io.StringIO()
    n = write_dimacs(f, native)
    write_dimacs(f.cnf(), plain)
    assert n == f.cnf().nclauses
    assert [x for x in native.getvalue().splitlines() if not x.startswith("c ")] == \
           [x for x in plain.getvalue().splitlines() if not x.startswith("c ")]


def test_external_solver_gets_the_expansion(tmp_path):
    script = tmp_path / "solver.py"
    script.write_text("import sys\nfrom pysat.formula import CNF\nfrom pysat.solvers import Solver\n"
                      "cnf = CNF(from_file=sys.argv[1])\ns = Solver(name='minisat22', bootstrap_with=cnf.clauses)\n"
                      "if s.solve():\n    print('s SATISFIABLE')\n    print('v', *s.get_model(), 0)\n"
                      "else:\n    print('s UNSATISFIABLE')\n")
    res = cli("check-unique", UNIQUE, "--encoding", "native", "--solver", f"ext:{sys.executable} {script}")
    assert res.returncode == 0 and "unique" in res.stdout, res.stderr


@pytest.mark.parametrize("args", [
    ["count", COUNTED, "--method", "ganak"],
    ["count", COUNTED, "--method", "approx"],
    ["pack", INSTANCES / "lpanel-6x6-none.txt", "--method", "rc2"],
    ["check-unique", UNIQUE, "--proof", "{tmp}/proof"],
    ["pack", INSTANCES / "lpanel-6x6-none.txt", "--proof", "{tmp}/proof"],
], ids=["ganak", "approx", "rc2", "drat-proof", "pack-proof"])
def test_cnf_only_consumers_refuse_in_one_line(args, tmp_path):
    res = cli(*[str(a).replace("{tmp}", str(tmp_path)) for a in args], "--encoding", "native")
    assert res.returncode == 2, (res.returncode, res.stdout, res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "encoding native" in lines[0] \
        and "choose a CNF encoding" in lines[0], res.stderr


def test_plugin_solver_refuses_in_one_line(tmp_path):
    (tmp_path / "mysolver.py").write_text(
        "from pysat.solvers import Solver\n"
        "class MySolver:\n"
        "    def __init__(self):\n        self.s = Solver(name='minisat22')\n"
        "    def add_clause(self, clause):\n        self.s.add_clause(clause)\n"
        "    def solve(self, assumptions=()):\n        return self.s.solve(assumptions=list(assumptions))\n"
        "    def model(self):\n        return self.s.get_model() or []\n"
        "    def close(self):\n        self.s.delete()\n")
    res = cli("solve", UNIQUE, "--encoding", "native", "--solver", "mysolver.py:MySolver", cwd=tmp_path)
    assert res.returncode == 2, (res.stdout, res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "choose a CNF encoding" in lines[0], res.stderr


def test_fuzz_checks_the_expansion_alone():
    from tilesat.making.fuzz import encoding_alone

    assert all(encoding_alone("native", n) is None for n in range(1, 9))


@settings(max_examples=25, deadline=None)
@given(instances().filter(lambda inst: inst.board.rows * inst.board.cols <= 20), st.sampled_from(["pieces", "cells"]),
       st.sampled_from(list(NATIVE_SOLVERS)))
def test_pack_incremental_natively_finds_the_brute_force_optimum(instance, objective, solver):
    """Packings: each cell's at-most-one (with its "empty" variable) and the
    totalizer's clauses on minicard/gluecard, against the brute force."""
    from hypothesis import reject
    from tilesat.certify.oracle import TooHard, brute_force_max_packing
    from tilesat.questions.pack import pack

    from test_property import _args

    try:
        truth = brute_force_max_packing(*_args(instance), objective=objective)
    except TooHard:
        reject()
    result = pack(instance, objective, "incremental", encoding="native", solver=solver)
    assert result.proved and result.optimum == truth


@pytest.mark.parametrize("solver", ["cadical195", "glucose4", "minicard"])
def test_a_packing_bound_starts_above_the_expansions_auxiliaries(solver):
    """Was: pack's "more than k pieces" clauses took variables from the native
    formula's top, which the expansion's piece-count auxiliaries already used:
    2x3 with L3:0..2 packed 1 piece with glucose4 (found by test_pack's
    hypothesis test)."""
    instance = parse_instance("pieces: L3:0..2\n...\n...\n")
    assert pack(instance, "pieces", "incremental", encoding="native", solver=solver).optimum == 2


@settings(max_examples=60, deadline=None)
@example(n=0, low=-1, high=-1, card="seqcounter", bits=0)  # a negative upper bound: nothing meets it
@given(n=st.integers(0, 6), low=st.integers(-1, 7), high=st.integers(-1, 7),
       card=st.sampled_from(["seqcounter", "totalizer", "sortnetwrk", "cardnetwrk"]), bits=st.integers(0, 63))
def test_between_holds_exactly_when_the_count_is_within_bounds(n, low, high, card, bits):
    """formula.between (the piece counts of the whole board and of the local change's boxes):
    an assignment of the literals extends to a model exactly when low <= count <= high."""
    from tilesat.sat.formula import between

    lits = list(range(1, n + 1))
    clauses, top = between(lits, low, high, n, card)
    assert top >= n and all(abs(v) <= top for clause in clauses for v in clause)
    chosen = [v if bits >> (v - 1) & 1 else -v for v in lits]
    with Solver(name="cadical195", bootstrap_with=[c for c in clauses if c]) as solver:
        sat = [] not in clauses and solver.solve(assumptions=chosen)
    assert sat == (low <= sum(v > 0 for v in chosen) <= high)
